import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HELP, parseCli, UsageError } from "../../src/hosts/cli";
import { startStandaloneEmulator, timed, type StandaloneEmulator } from "../../testing";

// `npm run emulator -- --frontend-latency-ms N`: a browser far from Clerk. Clerk's own page objects
// (@clerk/testing's) start waiting for a prepare/attempt answer only after the click that sends it;
// an emulator answering in a few milliseconds answers before the wait begins.
const LATENCY_MS = 1_000;
/** An app the handshake may send browsers back to (nothing listens there: only the redirect is read). */
const APP_ORIGIN = "http://127.0.0.1:9";
let emulator: StandaloneEmulator | undefined;
let output = "";
let url = "";
let secret = "";

beforeAll(async () => {
  emulator = await startStandaloneEmulator([
    "--frontend-latency-ms",
    String(LATENCY_MS),
    "--allowed-origin",
    APP_ORIGIN,
  ]);
  ({ url, secret } = emulator);
  output = emulator.output();
}, 30_000);

afterAll(async () => {
  await emulator?.stop();
});

describe("npm run emulator -- --frontend-latency-ms", () => {
  it("delays every Frontend API answer by that much, and says so at start", async () => {
    expect(output).toContain(`Frontend API latency: ${LATENCY_MS} ms.`);
    const environment = await timed(() => fetch(`${url}/v1/environment`));
    expect(environment.status).toBe(200);
    expect(environment.ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
    const signIn = await timed(() =>
      fetch(`${url}/v1/client/sign_ins`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ identifier: "ada@example.com" }),
      }),
    );
    expect(signIn.status).toBe(200);
    expect(signIn.ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
  });

  it("holds back a redirect too, and sends it as the redirect it is (the handshake's 307, not a 200)", async () => {
    let location: string | null = null;
    const handshake = await timed(async () => {
      const res = await fetch(`${url}/v1/client/handshake?redirect_url=${encodeURIComponent(`${APP_ORIGIN}/after`)}`, {
        redirect: "manual",
      });
      location = res.headers.get("location");
      return res;
    });
    expect(handshake.status).toBe(307);
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:9\/after\?/);
    expect(handshake.ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
  });

  it("holds back the answer, not the call: a browser gone before the answer still signed in", async () => {
    const bapi = (path: string, init: RequestInit = {}) =>
      fetch(`${url}/api/v1${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      });
    const sessions = async () =>
      ((await (await bapi("/sessions?user_id=user_seed_grace")).json()) as { id: string }[]).length;
    const before = await sessions();
    const { token } = (await (
      await bapi("/sign_in_tokens", { method: "POST", body: JSON.stringify({ user_id: "user_seed_grace" }) })
    ).json()) as { token: string };
    // The browser reloads 200 ms after the click: it never sees the answer.
    const gone = AbortSignal.timeout(200);
    await expect(
      fetch(`${url}/v1/client/sign_ins`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ strategy: "ticket", ticket: token }),
        signal: gone,
      }),
    ).rejects.toThrow();
    expect(await sessions()).toBe(before + 1);
  });

  it("leaves the Backend API alone (--latency-ms is its own)", async () => {
    const users = await timed(() =>
      fetch(`${url}/api/v1/users/count`, { headers: { Authorization: `Bearer ${secret}` } }),
    );
    expect(users.status).toBe(200);
    expect(users.ms).toBeLessThan(LATENCY_MS);
  });

  it("reads the flag or CLERK_EMULATOR_FRONTEND_LATENCY_MS (the flag wins), and refuses nonsense", () => {
    expect(parseCli([], {})).toMatchObject({ frontendLatencyMs: 0 });
    expect(parseCli([], { CLERK_EMULATOR_FRONTEND_LATENCY_MS: "80" })).toMatchObject({ frontendLatencyMs: 80 });
    expect(parseCli(["--frontend-latency-ms", "120"], { CLERK_EMULATOR_FRONTEND_LATENCY_MS: "80" })).toMatchObject({
      frontendLatencyMs: 120,
      backendLatencyMs: 0,
    });
    for (const bad of ["-1", "fast", "10001", "1.5"]) {
      expect(() => parseCli(["--frontend-latency-ms", bad], {}), bad).toThrow(UsageError);
    }
    expect(HELP).toMatch(/--frontend-latency-ms <n>\n.*\n.*\[CLERK_EMULATOR_FRONTEND_LATENCY_MS\]/);
  });
});
