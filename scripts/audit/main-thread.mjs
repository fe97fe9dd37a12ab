// Where a page's main thread went before its largest paint, from the trace Lighthouse recorded:
// the work the simulated phone has to finish before it can draw (`npm run audit -- --main-thread`).
import { MainThreadTasks } from "lighthouse/core/computed/main-thread-tasks.js";
import { ProcessedNavigation } from "lighthouse/core/computed/processed-navigation.js";
import { ProcessedTrace } from "lighthouse/core/computed/processed-trace.js";

/** Lighthouse's task groups, shortened for a table. */
const GROUPS = {
  scriptEvaluation: "script",
  scriptParseCompile: "compile",
  styleLayout: "style+layout",
  paintCompositeRender: "paint",
  parseHTML: "HTML+CSS parse",
  garbageCollection: "GC",
  other: "other",
};

/**
 * Milliseconds of main-thread work observed (unthrottled) from navigation to the largest paint,
 * by Lighthouse's task group; `× slowdown` is what the simulated phone is charged.
 * @param {LH.Artifacts["Trace"]} trace
 */
export async function mainThreadBeforeLcp(trace) {
  const context = { computedCache: new Map() };
  const processed = await ProcessedTrace.request(trace, context);
  const { timings } = await ProcessedNavigation.request(processed, context);
  const lcp = timings.largestContentfulPaint ?? timings.firstContentfulPaint;
  const tasks = await MainThreadTasks.request(trace, context);
  const byGroup = {};
  let total = 0;
  for (const task of tasks) {
    if (task.startTime < 0 || task.startTime >= lcp) continue;
    // A task's self time, cut at the paint, so that one long task across it counts what came before.
    const share = task.duration > 0 ? Math.min(1, (lcp - task.startTime) / task.duration) : 1;
    const ms = task.selfTime * share;
    const group = GROUPS[task.group.id] ?? task.group.id;
    byGroup[group] = (byGroup[group] ?? 0) + ms;
    total += ms;
  }
  return { lcp, total, byGroup };
}

/** One line: "LCP at 812 ms observed; 640 ms of main thread before it: script 300 · …". */
export function mainThreadLine({ lcp, total, byGroup }, slowdown) {
  const parts = Object.entries(byGroup)
    .sort(([, a], [, b]) => b - a)
    .map(([group, ms]) => `${group} ${Math.round(ms)}`);
  return `largest paint at ${Math.round(lcp)} ms observed; ${Math.round(total)} ms of main thread before it (× ${slowdown} = ${Math.round(total * slowdown)} ms on the phone): ${parts.join(" · ")}`;
}
