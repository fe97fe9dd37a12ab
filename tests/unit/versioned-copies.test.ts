import fc from "fast-check";
import { describe, it } from "vitest";
import { memoryStore } from "~/lib/cache/store.server";
import { memoryMembershipIndex } from "~/lib/cache/membership-index.server";
import { runModel, stepArbitrary, type Step } from "../support/versioned-copies-model";

// Kept copies are versioned (docs/decisions/0011): the model of Clerk, Svix and two instances in
// tests/support/versioned-copies-model.ts, over one in-memory store (tests/integration/redis-cluster
// runs it over Redis). MODEL_RUNS=2000 runs it ten times as long (docs/security.md).
const RUNS = Number(process.env.MODEL_RUNS ?? 200);
const fleet = async () => ({ store: memoryStore(), membershipIndex: memoryMembershipIndex() });

describe("versioned copies", () => {
  // The findings and the seeds that failed once, kept as they were found.
  const regressions: Record<string, Step[]> = {
    "a promotion delivered after a demotion that was read (issue 67, 1)": [
      { kind: "role", org: 0, role: "org:member" },
      { kind: "deliver", pick: 0, instance: 0, keep: false },
      { kind: "role", org: 0, role: "org:admin" },
      { kind: "role", org: 0, role: "org:member" },
      { kind: "read", instance: 1 },
      { kind: "deliver", pick: 0, instance: 0, keep: false },
    ],
    "a creation delivered after its removal was read": [
      { kind: "role", org: 1, role: "org:admin" },
      { kind: "role", org: 1, role: null },
      { kind: "read", instance: 0 },
      { kind: "deliver", pick: 0, instance: 1, keep: false },
    ],
    "a membership and a rename delivered after the organization's deletion": [
      { kind: "role", org: 0, role: "org:admin" },
      { kind: "read", instance: 0 },
      { kind: "rename", org: 0 },
      { kind: "deleteOrg", org: 0 },
      { kind: "deliver", pick: 2, instance: 0, keep: false },
      { kind: "deliver", pick: 0, instance: 1, keep: false },
      { kind: "deliver", pick: 0, instance: 0, keep: false },
    ],
  };
  for (const [name, steps] of Object.entries(regressions)) it(name, () => runModel(steps, fleet));

  it(`random histories, deliveries and reads (${RUNS} runs, seeded)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 30 }), (steps) => runModel(steps, fleet)),
      { numRuns: RUNS, seed: 67 },
    );
  }, 600_000);
});
