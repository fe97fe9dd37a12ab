import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorCalls, emulatorSecretKey } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// The app's shared back-off (a 429 holds the endpoint for its Retry-After)
// against the emulator's real limit, not an armed fault: a development
// instance's 100 Backend API calls per 10 s, used up by someone else's calls
// on the same instance.
const MEMBERS = "bapi GET /v1/organizations/:id/memberships";
let server: RunningServer;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ CLERK_EMULATOR_WEBHOOKS: "off", CLERK_EMULATOR_RATE_LIMITS: "development" });
  cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
});
afterAll(() => server.stop());

const directory = async (query: string) => {
  const res = await fetch(`${server.origin}/orgs/analytical-engines/members?q=${query}`, {
    headers: { Cookie: cookie },
  });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get("retry-after") };
};
const refused = async () =>
  ((await (await fetch(`${server.origin}/__clerk/_emulator/rate-limited`)).json()) as { bapi: number }).bapi;
const membersCalls = async () => (await emulatorCalls(server.origin))[MEMBERS] ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Clerk's rate limit, reached for real", () => {
  it("is answered 429 with Retry-After, and the app holds back until it has passed", async () => {
    expect((await directory("grace")).status).toBe(200);

    // Another process on the same instance uses up the window.
    const secret = emulatorSecretKey(server.dataDir);
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${server.origin}/__clerk/api/v1/users/count`, { headers: { Authorization: `Bearer ${secret}` } }),
      ),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const limited = burst.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("too_many_requests");

    // The app's next call meets the limit: the page says so, with the time to wait.
    const before = await refused();
    const page = await directory("ada");
    expect(page.status).toBe(503);
    expect(Number(page.retryAfter)).toBeGreaterThanOrEqual(1);
    const heldAt = Date.now();
    const triedOnce = await refused();
    expect(triedOnce).toBeGreaterThan(before);

    // Held: another page makes no call at all, not even one that would be refused.
    const calls = await membersCalls();
    expect((await directory("alan")).status).toBe(503);
    expect(await refused()).toBe(triedOnce);
    expect(await membersCalls()).toBe(calls);

    // Once the window has moved on, the app calls again and the page answers.
    await sleep(Math.max(0, Number(page.retryAfter) * 1_000 - (Date.now() - heldAt)) + 1_200);
    expect((await directory("alan")).status).toBe(200);
    expect(await membersCalls()).toBe(calls + 1);
  }, 40_000);
});
