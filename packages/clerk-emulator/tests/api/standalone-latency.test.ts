import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HELP, parseCli, UsageError } from "../../src/hosts/cli";
import { startStandaloneEmulator, timed, type StandaloneEmulator } from "../../testing";

// `npm run emulator -- --latency-ms N` (or CLERK_EMULATOR_LATENCY_MS), as local
// mode already had: a Clerk far away, on the standalone emulator too.
const LATENCY_MS = 400;
let emulator: StandaloneEmulator | undefined;
let output = "";
let url = "";
let secret = "";

beforeAll(async () => {
  emulator = await startStandaloneEmulator(["--latency-ms", String(LATENCY_MS)]);
  ({ url, secret } = emulator);
  output = emulator.output();
}, 30_000);

afterAll(async () => {
  await emulator?.stop();
});

describe("npm run emulator -- --latency-ms", () => {
  it("delays every Backend API answer by that much, and says so at start", async () => {
    expect(output).toContain(`Backend API latency: ${LATENCY_MS} ms.`);
    const users = await timed(() =>
      fetch(`${url}/api/v1/users/count`, { headers: { Authorization: `Bearer ${secret}` } }),
    );
    expect(users.status).toBe(200);
    expect(users.ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
  });

  it("leaves the Frontend API alone, as local mode's CLERK_EMULATOR_LATENCY_MS does", async () => {
    const environment = await timed(() => fetch(`${url}/v1/environment`));
    expect(environment.status).toBe(200);
    expect(environment.ms).toBeLessThan(LATENCY_MS);
  });

  it("reads the flag or CLERK_EMULATOR_LATENCY_MS (the flag wins), and refuses nonsense", () => {
    expect(parseCli([], {})).toMatchObject({ backendLatencyMs: 0 });
    expect(parseCli([], { CLERK_EMULATOR_LATENCY_MS: "80" })).toMatchObject({ backendLatencyMs: 80 });
    expect(parseCli(["--latency-ms", "120"], { CLERK_EMULATOR_LATENCY_MS: "80" })).toMatchObject({
      backendLatencyMs: 120,
    });
    for (const bad of ["-1", "fast", "10001", "1.5"]) {
      expect(() => parseCli(["--latency-ms", bad], {}), bad).toThrow(UsageError);
    }
    expect(HELP).toMatch(/--latency-ms <n>.*\n.*\[CLERK_EMULATOR_LATENCY_MS\]/);
  });
});
