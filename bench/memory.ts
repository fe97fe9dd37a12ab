/**
 * Memory under load: one instance's RSS through the bench's load mix (the
 * landing page, the organization home and its members page), left uncapped
 * and with the heap size `npm start` and the image set (docs/deployment.md,
 * "Memory"), and what the cap costs in requests per second; both on the Node
 * the image runs (scripts/pinned-node.mjs).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { addFailures, describeFailures, judgeFailures, watchAutocannon, type Failures } from "./failures";
import { ROOT } from "./servers";
import { median } from "./stats";

const START = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts
  .start;
/** The heap flags `npm start` gives V8 when NODE_OPTIONS is unset (package.json; the Dockerfile sets the same). */
export const DOCUMENTED_HEAP = /NODE_OPTIONS:-([^}"]+)\}/.exec(START)![1]!;
/** The environment `npm start` and the image run the server with: those heap flags, and glibc's malloc arenas. */
export const DOCUMENTED_MEMORY_ENV = {
  NODE_OPTIONS: DOCUMENTED_HEAP,
  MALLOC_ARENA_MAX: /MALLOC_ARENA_MAX:-(\d+)\}/.exec(START)![1]!,
};
/** The target: RSS under the load mix, with the documented heap, and its throughput against uncapped. */
const RSS_TARGET_MB = 300;
const THROUGHPUT_TARGET = 0.95;
const RUNS = 3;
/** BENCH_MEMORY_REQUESTS: fewer for a quick look (the figures above are from 8,000). */
const REQUESTS_PER_RUN = Number(process.env.BENCH_MEMORY_REQUESTS ?? 8_000);

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

export type MemoryTarget = { name: string; origin: string; pid: number };
type Run = { rss: number; rps: number; failures: Failures };
/** One request of the mix: a path and its headers, or a function that picks one each time (many people's views). */
export type MixRequest = () => { path: string; headers?: Record<string, string> };

/**
 * `RUNS` rounds of `REQUESTS_PER_RUN` requests of the mix against each
 * target, taking turns (so both meet the machine's same moments; every other
 * round in reverse order), fresh
 * processes that served nothing before.
 */
export async function memoryRuns(
  targets: MemoryTarget[],
  next: MixRequest,
  connections: number,
): Promise<Map<MemoryTarget, Run[]>> {
  const runs = new Map<MemoryTarget, Run[]>(targets.map((t) => [t, []]));
  for (let round = 0; round < RUNS; round++) {
    // Every other round in reverse, so neither instance always runs just after the other.
    for (const target of round % 2 ? [...targets].reverse() : targets) {
      // Each request is the mix's next pick (autocannon asks for it as it sends), so the views are many people's.
      const instance = autocannon({
        url: target.origin,
        connections,
        amount: REQUESTS_PER_RUN,
        requests: [{ method: "GET" as const, setupRequest: (req) => ({ ...req, ...next() }) }],
      });
      const watched = watchAutocannon(instance);
      const result = await instance;
      const run = { rss: rssMb(target.pid), rps: result.requests.average, failures: watched.failures(result) };
      runs.get(target)!.push(run);
      // As it goes: a round takes a minute or more on a busy machine.
      console.log(
        `  round ${round + 1}, ${target.name}: RSS ${fmt(run.rss)} MB, ${fmt(run.rps)} req/s, failures ${describeFailures(run.failures)}`,
      );
    }
  }
  return runs;
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

/** The memory table: each target's RSS after each round, its highest, its req/s; then the cap against uncapped. */
export function memoryRows(runs: Map<MemoryTarget, Run[]>, uncapped: MemoryTarget, capped: MemoryTarget): string[] {
  const rows = [
    `| memory: ${RUNS} × ${fmt(REQUESTS_PER_RUN)} requests of the mix, one fresh instance each | RSS MB after each round | highest RSS MB | req/s, median of rounds | failures, by kind |`,
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const [target, list] of runs) {
    const rss = list.map((r) => r.rss);
    rows.push(
      `| ${target.name} | ${rss.map((x) => fmt(x)).join(", ")} | ${fmt(Math.max(...rss))} | ${fmt(median(list.map((r) => r.rps)))} | ${describeFailures(totalFailures(list))} |`,
    );
  }
  const of = (target: MemoryTarget) => runs.get(target)!;
  const peak = Math.max(...of(capped).map((r) => r.rss));
  const ratio = median(of(capped).map((r) => r.rps)) / median(of(uncapped).map((r) => r.rps));
  const met = peak <= RSS_TARGET_MB && ratio >= THROUGHPUT_TARGET;
  // Ten connections are within one instance's capacity: any failure, a shed 503 included, is unexpected.
  for (const [target, list] of runs) rows.push("", judgeFailures(`Memory, ${target.name}`, totalFailures(list)));
  rows.push(
    "",
    `With ${DOCUMENTED_HEAP} and MALLOC_ARENA_MAX=${DOCUMENTED_MEMORY_ENV.MALLOC_ARENA_MAX}: highest RSS ${fmt(peak)} MB, ${fmt(ratio, 2)}× the uncapped req/s (target RSS ≤ ${RSS_TARGET_MB} MB at ≥ ${THROUGHPUT_TARGET}×: ${met ? "met" : "missed"}).`,
  );
  return rows;
}

const totalFailures = (list: Run[]) => list.reduce((all, r) => addFailures(all, r.failures), {} as Failures);
