// The CPU slowdown of `npm run audit`'s phone, set from this host's speed at the moment of each run.
//
// Lighthouse slows the CPU by a fixed 4× whatever the host: on this shared two-core machine the
// same code scored 95–100 on a fast evening and 86–98 in a slow hour (docs/performance.md). Its
// throttling guide says to calibrate instead: "CPU throttling is expressed relative to the
// performance of the host device … it's important to calibrate your device before attempting to
// compare different reports", choosing `throttling.cpuSlowdownMultiplier` from the host's
// `benchmarkIndex` for the target device class
// (https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md#calibrating-the-cpu-slowdown).
//
// The multiplier is the host's index divided by the target phone's. Lighthouse's mobile run uses
// simulated throttling: it multiplies the CPU time observed unthrottled by the multiplier, so
// host ÷ target makes the simulated CPU time the same whatever the host's hour (a task of
// t × 2,500 / host ms observed becomes t × 2,500 / target). (The guide's calculator fits a
// curve through its table's brackets instead; a ratio is what holds one phone fixed.)
import { auditFlowArtifacts } from "lighthouse";
import { throttling as throttlingPresets } from "lighthouse/core/config/constants.js";

/**
 * The target phone: what Lighthouse's fixed 4× made of this machine on the evening the app's
 * pages were accepted at 95–100 (2026-11-28, benchmark index 2,142–2,894, about 2,500 ÷ 4). It sits
 * in the guide's "mid-tier mobile" bracket (125–800, a Moto G4), between Chrome DevTools' own
 * calibration presets (low-tier 264, mid-tier 1,000). `--target-index N` audits another phone.
 */
export const TARGET_BENCHMARK_INDEX = 625;

/**
 * The CPU slowdown that makes a host of `benchmarkIndex` the target phone. Below 1 when the host,
 * in a slow hour, is slower than the phone: the simulation then shortens each observed task
 * (lantern's Simulator multiplies a task's observed duration by the multiplier, whatever its
 * value), so a slow hour is not counted against the page. Not below a quarter: an index that low
 * is a machine too busy to measure, and the run says so.
 */
export function cpuSlowdownFor(benchmarkIndex, targetIndex = TARGET_BENCHMARK_INDEX) {
  return Math.max(0.25, Math.round((benchmarkIndex / targetIndex) * 100) / 100);
}

/** Lighthouse's phone (its default mobile settings) with the CPU slowed `slowdown` times. */
export function phoneConfig(slowdown) {
  return {
    extends: "lighthouse:default",
    settings: { throttling: { ...throttlingPresets.mobileSlow4G, cpuSlowdownMultiplier: slowdown } },
  };
}

/**
 * The host's speed for a run: the median of the benchmark indexes Lighthouse measured before each
 * of its phone loads (`artifacts.BenchmarkIndex`).
 *
 * Each index is a short JavaScript loop run in the browser moments before a load. On this shared
 * two-core machine, loads a few seconds apart on a quiet machine read indexes 1,113–1,987, while
 * the same work in those loads (clerk-js's evaluation, the same script every time) took 41–76 ms:
 * a load's own index was further from its load's speed than the run's median
 * (docs/performance.md, "One index per run"). Calibration fixes the hour, not the second, and the
 * same slowdown for every page of a run keeps the app's screens and the quickstart's comparable.
 * @param {LH.Artifacts[]} artifacts of the run's phone loads
 */
export function runBenchmarkIndex(artifacts) {
  const indexes = artifacts
    .map((a) => a.BenchmarkIndex)
    .filter((index) => index > 0)
    .sort((a, b) => a - b);
  if (indexes.length === 0) return null;
  const middle = indexes.length >> 1;
  return indexes.length % 2 ? indexes[middle] : (indexes[middle - 1] + indexes[middle]) / 2;
}

/**
 * A phone audit's result recomputed at the slowdown the host's benchmark index calls for.
 *
 * Lighthouse measures `benchmarkIndex` in the browser moments before it loads the page (the
 * index reported as `lhr.environment.benchmarkIndex`). The simulated slowdown is applied when the
 * audits are computed, not while the page loads, so the load's own artifacts (trace, network log)
 * are audited again at `hostIndex ÷ target`, `hostIndex` being the run's (`runBenchmarkIndex`) or,
 * with `--per-load-index`, the load's own.
 * @param {{lhr: LH.Result, artifacts: LH.Artifacts}} result of `lighthouse()` with `phoneConfig(any)`
 * @returns {Promise<{lhr: LH.Result, artifacts: LH.Artifacts, report: string, slowdown: number}>}
 */
export async function calibrated(
  result,
  targetIndex = TARGET_BENCHMARK_INDEX,
  hostIndex = result.artifacts.BenchmarkIndex,
) {
  const { artifacts } = result;
  const slowdown = cpuSlowdownFor(hostIndex, targetIndex);
  // The settings the page was gathered with, but for the slowdown: Lighthouse refuses to audit
  // artifacts under settings other than their own.
  const settings = {
    ...artifacts.settings,
    throttling: { ...artifacts.settings.throttling, cpuSlowdownMultiplier: slowdown },
  };
  const flow = await auditFlowArtifacts(
    { name: "calibrated", gatherSteps: [{ artifacts: { ...artifacts, settings }, flags: {} }] },
    phoneConfig(slowdown),
  );
  const { lhr } = flow.steps[0];
  return { lhr, artifacts, report: JSON.stringify(lhr, null, 2), slowdown };
}
