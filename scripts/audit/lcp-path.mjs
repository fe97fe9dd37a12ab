// What the simulated phone waits on before its largest paint: the chain of requests and
// main-thread tasks that ends at Lighthouse's simulated LCP (`npm run audit -- --lcp-path`).
//
// Lighthouse's phone score is not the page's own load: it is lantern's simulation of the page's
// dependency graph (every request that ended before the observed LCP, the script evaluations and
// layouts before it) on a slow network and a slowed CPU. Its LCP is the mean of two estimates, an
// optimistic and a pessimistic graph. This walks the pessimistic one back from its last node,
// always to the dependency that finished last: the chain that set the time.
import { LanternLargestContentfulPaint } from "lighthouse/core/computed/metrics/lantern-largest-contentful-paint.js";

const short = (url) => url.replace(/^https?:\/\/[^/]+/, "").replace(/\?.*$/, "");

/** One node as a line of the table. */
function describe(node) {
  if (node.type === "network") {
    const kb = Math.round((node.request.transferSize ?? 0) / 1024);
    return `request ${short(node.request.url)} (${kb} KB)`;
  }
  const scripts = node.getEvaluateScriptURLs?.() ?? new Set();
  const what = scripts.size ? `run ${[...scripts].map(short).join(", ")}` : "task";
  const layout = node.didPerformLayout?.() ? " + layout" : "";
  return `${what}${layout}`;
}

/**
 * The simulated LCP and the chain of nodes behind it, with the graph's totals.
 * @param {LH.Artifacts} artifacts of a run
 * @param {LH.Config.Settings} settings the run's settings (its CPU slowdown)
 */
export async function lcpPath(artifacts, settings) {
  const context = { computedCache: new Map(), settings };
  const metric = await LanternLargestContentfulPaint.request(
    {
      trace: artifacts.Trace,
      devtoolsLog: artifacts.DevtoolsLog,
      gatherContext: artifacts.GatherContext,
      settings,
      URL: artifacts.URL,
      SourceMaps: artifacts.SourceMaps,
      simulator: null,
    },
    context,
  );
  const timings = metric.pessimisticEstimate.nodeTimings;
  let last = null;
  for (const [node, t] of timings) if (!last || t.endTime > timings.get(last).endTime) last = node;
  const chain = [];
  for (let node = last; node;) {
    const t = timings.get(node);
    chain.unshift({ what: describe(node), start: Math.round(t.startTime), end: Math.round(t.endTime) });
    let gate = null;
    for (const dep of node.getDependencies()) {
      const d = timings.get(dep);
      if (d && (!gate || d.endTime > timings.get(gate).endTime)) gate = dep;
    }
    node = gate;
  }
  let requests = 0;
  let bytes = 0;
  let cpu = 0;
  for (const [node, t] of timings) {
    if (node.type === "network") {
      requests++;
      bytes += node.request.transferSize ?? 0;
    } else cpu += t.endTime - t.startTime;
  }
  return {
    lcp: Math.round(metric.timing),
    optimistic: Math.round(metric.optimisticEstimate.timeInMs),
    pessimistic: Math.round(metric.pessimisticEstimate.timeInMs),
    requests,
    kilobytes: Math.round(bytes / 1024),
    cpu: Math.round(cpu),
    chain,
  };
}

/** The chain as lines under a heading. */
export function lcpPathLines(title, path) {
  return [
    `${title}: simulated LCP ${path.lcp} ms (optimistic ${path.optimistic}, pessimistic ${path.pessimistic}); ` +
      `the pessimistic graph: ${path.requests} requests, ${path.kilobytes} KB, ${path.cpu} ms of main thread`,
    ...path.chain.map(({ what, start, end }) => `  ${String(start).padStart(5)}–${String(end).padEnd(5)} ${what}`),
  ].join("\n");
}
