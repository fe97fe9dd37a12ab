/**
 * Server load: autocannon against each server in turn, the whole table
 * `ROUNDS` times, with each server's CPU time per request and the Backend
 * API calls it made; then the ratios the targets are judged on, and the
 * price of recording metrics, measured alone.
 */
import { EventEmitter } from "node:events";
import autocannon from "autocannon";
import { createMetrics } from "../server/metrics";
import { MEMBERS, ORG_HOME, type Fleet } from "./fleet";
import { BROWSER_HEADERS, backendCalls, cpuMs, url } from "./servers";
import { addFailures, describeFailures, judgeFailures, watchAutocannon, type Failures } from "./failures";
import { fmt, fmtSpread, spread, type Spread } from "./stats";

const DURATION_S = 5;
const ROUNDS = 5;
export const CONNECTIONS = 10;

type Load = { rps: number; p50: number; p99: number; failures: Failures; cpuMs: number; clerkCalls: number };
/** Event-loop delay over one run, in ms, as the server's own metrics report it. */
type EventLoopDelay = { p50: number; p99: number };
/**
 * A load target: the process that serves it (for its CPU time), the Clerk
 * stand-in it calls, if any, and its metrics endpoint, if it has one (for
 * its event-loop delay).
 */
type Target = { url: string; headers?: Record<string, string>; pid: number; clerk?: string; metrics?: string };
type LoadSpread = { [K in keyof Load]: K extends "failures" ? Failures : Spread } & {
  rounds: Load[];
  /** One a round, for a target with a metrics endpoint; none otherwise. */
  eventLoop: EventLoopDelay[];
};

/**
 * The event-loop delay since the last scrape: prom-client's default metrics
 * read Node's event-loop delay histogram at each scrape and then reset it.
 */
async function eventLoopDelay(metrics: string): Promise<EventLoopDelay> {
  const text = await (await fetch(metrics)).text();
  const ms = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) * 1000;
  return { p50: ms("nodejs_eventloop_lag_p50_seconds"), p99: ms("nodejs_eventloop_lag_p99_seconds") };
}

/** A target's figures over its rounds: each one's spread, and the failures of them all, by kind. */
const loadSpread = (rounds: Load[], eventLoop: EventLoopDelay[] = []): LoadSpread => ({
  rps: spread(rounds.map((x) => x.rps)),
  p50: spread(rounds.map((x) => x.p50)),
  p99: spread(rounds.map((x) => x.p99)),
  failures: rounds.reduce((all, x) => addFailures(all, x.failures), {} as Failures),
  cpuMs: spread(rounds.map((x) => x.cpuMs)),
  clerkCalls: spread(rounds.map((x) => x.clerkCalls)),
  rounds,
  eventLoop,
});

/**
 * The whole load table, ROUNDS times: the targets take turns within a round,
 * so a slow moment of the shared machine hurts every target alike instead of
 * whichever happened to be running, and every other round runs them in the
 * reverse order, so no target always follows the same one. Each figure is
 * given as the median of its rounds with their min and max.
 */
async function loadInTurns<T extends Target[]>(given: [...T]): Promise<{ [K in keyof T]: LoadSpread }> {
  const targets = given.map((t) => ({ ...t, headers: { ...BROWSER_HEADERS, ...t.headers } }));
  for (const t of targets) await autocannon({ url: t.url, headers: t.headers, connections: CONNECTIONS, duration: 2 }); // warm-up
  const runs: Load[][] = targets.map(() => []);
  const delays: EventLoopDelay[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...targets.entries()];
    if (round % 2) order.reverse();
    for (const [i, t] of order) {
      // Scraped before and after the run, outside its CPU time: the second scrape reads the run alone.
      if (t.metrics) await eventLoopDelay(t.metrics);
      const [cpuBefore, callsBefore] = [cpuMs(t.pid), t.clerk ? await backendCalls(t.clerk) : 0];
      const run = autocannon({ url: t.url, headers: t.headers, connections: CONNECTIONS, duration: DURATION_S });
      const watched = watchAutocannon(run);
      const r = await run;
      const [cpuAfter, callsAfter] = [cpuMs(t.pid), t.clerk ? await backendCalls(t.clerk) : 0];
      const requests = Math.max(1, r.requests.total);
      runs[i]!.push({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        // (autocannon's `errors` already hold its `timeouts`: adding both counted each time-out twice.)
        failures: watched.failures(r),
        cpuMs: (cpuAfter - cpuBefore) / requests,
        clerkCalls: (callsAfter - callsBefore) / requests,
      });
      if (t.metrics) delays[i]!.push(await eventLoopDelay(t.metrics));
    }
  }
  return runs.map((rounds, i) => loadSpread(rounds, delays[i])) as { [K in keyof T]: LoadSpread };
}

/** A ratio of two targets' figure: the ratio of their medians, and the spread of the ratio round by round. */
function ratio(a: LoadSpread, b: LoadSpread, figure: "rps" | "cpuMs" = "rps") {
  const perRound = a.rounds.map((round, i) => round[figure] / b.rounds[i]![figure]);
  const { min, max } = spread(perRound);
  return { value: a[figure].median / b[figure].median, min, max };
}
/**
 * Two processes serving the same thing, as one target: each round's figures
 * are the mean of theirs. What one process happens to cost (where its code
 * was compiled, what its heap looks like) then weighs half as much.
 */
function pooled(a: LoadSpread, b: LoadSpread): LoadSpread {
  return loadSpread(
    a.rounds.map((x, i) => {
      const y = b.rounds[i]!;
      const mean = (k: "rps" | "p50" | "p99" | "cpuMs" | "clerkCalls") => (x[k] + y[k]) / 2;
      return {
        rps: mean("rps"),
        p50: mean("p50"),
        p99: mean("p99"),
        failures: addFailures({ ...x.failures }, y.failures),
        cpuMs: mean("cpuMs"),
        clerkCalls: mean("clerkCalls"),
      };
    }),
  );
}
const fmtRatio = ({ value, min, max }: ReturnType<typeof ratio>) =>
  `${fmt(value, 2)} (rounds ${fmt(min, 2)}–${fmt(max, 2)})`;

/**
 * CPU microseconds the server's metrics take to record one organization-home
 * request, measured in this process: its request hook (in-flight gauge, the
 * counter and histogram of its route), and the cache lookups the page counts.
 * The load comparison cannot resolve a cost this small; this prices it directly.
 */
function metricsRecordingMicros(requests = 200_000): number {
  const { http, app } = createMetrics({ redis: null });
  const hook = http(() => "routes/orgs.$slug._index");
  const request = { method: "GET" } as Parameters<typeof hook>[0];
  const record = (count: number) => {
    for (let i = 0; i < count; i++) {
      const response = Object.assign(new EventEmitter(), { statusCode: 200 });
      hook(request, response as unknown as Parameters<typeof hook>[1], () => undefined);
      app.cacheLookup("profiles", "hit");
      app.cacheLookup("latestMembers", "hit");
      response.emit("close");
    }
  };
  record(requests / 10); // warm-up
  const before = process.cpuUsage();
  record(requests);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

export async function loadPhase({ ports, clerk, app, baseline, peer, cost }: Fleet) {
  console.log(
    `Load: the whole table ${ROUNDS} times (${CONNECTIONS} connections, ${DURATION_S} s per target, taking turns)…`,
  );
  const signedIn = { Cookie: clerk.cookie };
  const orgHomeOf = (port: number, pid: number, metrics?: string) => ({
    url: url(port, ORG_HOME),
    headers: signedIn,
    pid,
    clerk: clerk.origin,
    metrics,
  });
  const [landing, home, membersLoad, hello, quickstart, plain1, plain2, metered1, metered2] = await loadInTurns([
    { url: url(ports.app), pid: app.pid!, clerk: clerk.origin },
    orgHomeOf(ports.app, app.pid!),
    { url: url(ports.app, MEMBERS), headers: signedIn, pid: app.pid!, clerk: clerk.origin },
    { url: url(ports.baseline), pid: baseline.pid! },
    { url: url(ports.peer), headers: signedIn, pid: peer.pid!, clerk: clerk.origin },
    orgHomeOf(cost.plain1.port, cost.plain1.pid),
    orgHomeOf(cost.plain2.port, cost.plain2.pid),
    orgHomeOf(cost.metered1.port, cost.metered1.pid, cost.metered1.metrics),
    orgHomeOf(cost.metered2.port, cost.metered2.pid, cost.metered2.metrics),
  ]);
  return { landing, home, membersLoad, hello, quickstart, plain1, plain2, metered1, metered2 };
}

/**
 * The load table and the ratios judged on it. It prints as it goes: the
 * recording of metrics is timed between its rows, after the servers stopped.
 */
export function printLoad(load: Awaited<ReturnType<typeof loadPhase>>) {
  const { landing, home, membersLoad, hello, quickstart, plain1, plain2, metered1, metered2 } = load;
  const rows = [
    ["(a) landing, signed out", landing],
    ["(b) organization home, signed in", home],
    ["(m) organization home only, no metrics: process 1", plain1],
    ["(m) organization home only, no metrics: process 2", plain2],
    ["(m″) organization home only, with METRICS_PORT (metrics recorded): process 1", metered1],
    ["(m″) organization home only, with METRICS_PORT: process 2", metered2],
    ["(b′) members, signed in", membersLoad],
    ["(c) bare Remix 2 page (hello world)", hello],
    ["(e) peer: Clerk's Remix quickstart, signed in (<UserButton/>)", quickstart],
  ] as const;
  console.log(
    `\n| server (loopback, gzip); median (min–max) of ${ROUNDS} rounds | req/s | p50 ms | p99 ms | CPU ms per request | Backend API calls per request | failures, by kind |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |`,
  );
  for (const [name, r] of rows)
    console.log(
      `| ${name} | ${fmtSpread(r.rps)} | ${fmtSpread(r.p50)} | ${fmtSpread(r.p99)} | ${fmtSpread(r.cpuMs, 2)} | ${fmtSpread(r.clerkCalls, 3)} | ${describeFailures(r.failures)} |`,
    );
  // Ten connections are within every target's capacity: any failure is unexpected.
  console.log("");
  for (const [name, r] of rows) console.log(judgeFailures(`Load, ${name}`, r.failures));
  const delay = (r: LoadSpread, figure: keyof EventLoopDelay) =>
    fmtSpread(spread(r.eventLoop.map((d) => d[figure])), 1);
  console.log(
    `\nEvent-loop delay of the organization home under load, (m″) process 1 and 2, from their own metrics (nodejs_eventloop_lag_p50_seconds and _p99_seconds, each ${DURATION_S} s run alone; Node samples every 10 ms, so an idle loop reads about 10 ms): p50 ${delay(metered1, "p50")} and ${delay(metered2, "p50")} ms, p99 ${delay(metered1, "p99")} and ${delay(metered2, "p99")} ms.`,
  );
  console.log("\n| ratio of medians (and its spread round by round) | value | target |\n| --- | ---: | ---: |");
  const judged = (r: ReturnType<typeof ratio>, target: number, atMost = false) =>
    (atMost ? r.value <= target : r.value >= target) ? "met" : "missed";
  const meteredCost = ratio(pooled(metered1, metered2), pooled(plain1, plain2));
  const meteredCpu = ratio(pooled(metered1, metered2), pooled(plain1, plain2), "cpuMs");
  const vsPeer = ratio(home, quickstart);
  const cpuVsPeer = ratio(home, quickstart, "cpuMs");
  console.log(`| (a)/(c) landing vs hello world, req/s | ${fmtRatio(ratio(landing, hello))} | |`);
  console.log(`| (b)/(c) organization home vs hello world, req/s | ${fmtRatio(ratio(home, hello))} | |`);
  console.log(
    `| (m) process 2 / process 1, the same build without metrics: how far two processes differ, req/s | ${fmtRatio(ratio(plain2, plain1))} | |`,
  );
  console.log(
    `| (m″)/(m) organization home with metrics vs without (pairs of processes), req/s | ${fmtRatio(meteredCost)} | ≥ 0.97 (${judged(meteredCost, 0.97)}) |`,
  );
  console.log(
    `| (m″)/(m) organization home with metrics vs without (pairs of processes), CPU per request | ${fmtRatio(meteredCpu)} | |`,
  );
  const recording = metricsRecordingMicros();
  const recordingShare = recording / 1000 / home.cpuMs.median;
  console.log(
    `| metrics recorded for one organization-home request, measured alone: CPU µs, and its share of (b)'s CPU per request | ${fmt(recording, 2)} µs, ${fmt(recordingShare * 100, 2)}% | ≤ 3% (${recordingShare <= 0.03 ? "met" : "missed"}) |`,
  );
  console.log(
    `| (b)/(e) organization home vs the quickstart peer, req/s | ${fmtRatio(vsPeer)} | ≥ 1.00 (${judged(vsPeer, 1)}) |`,
  );
  // Issue 70's decision: at least the quickstart's requests per second, at no more than 0.75× its CPU per request.
  console.log(
    `| (b)/(e) organization home vs the quickstart peer, CPU per request | ${fmtRatio(cpuVsPeer)} | ≤ 0.75 (${judged(cpuVsPeer, 0.75, true)}) |`,
  );
}
