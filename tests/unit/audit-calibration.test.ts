import { describe, expect, it } from "vitest";
import { cpuSlowdownFor, runBenchmarkIndex } from "../../scripts/audit/calibration.mjs";

const loads = (...indexes: number[]) => indexes.map((BenchmarkIndex) => ({ BenchmarkIndex }));

describe("the audit's phone (scripts/audit/calibration.mjs)", () => {
  it("takes the host's speed for a run as the median of its loads' benchmark indexes", () => {
    expect(runBenchmarkIndex(loads(1_987, 1_113, 1_200))).toBe(1_200);
    expect(runBenchmarkIndex(loads(1_000, 1_400, 1_200, 3_000))).toBe(1_300);
    // A load Lighthouse could not measure (no index) does not count; none at all: no index.
    expect(runBenchmarkIndex(loads(0, 900))).toBe(900);
    expect(runBenchmarkIndex([])).toBeNull();
  });

  it("slows the CPU by the host's index over the phone's, under 1× in a slow hour, not below a quarter", () => {
    expect(cpuSlowdownFor(1_250, 625)).toBe(2);
    expect(cpuSlowdownFor(500, 625)).toBe(0.8);
    expect(cpuSlowdownFor(50, 625)).toBe(0.25);
  });
});
