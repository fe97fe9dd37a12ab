import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armFault, emulatorCalls } from "../support/emulator-api";
import { scrapeMetrics } from "../support/metrics";
import { freePort, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// When Clerk pushes back: a 429 holds the endpoint back for its Retry-After,
// and a page with a kept copy (up to 10 minutes old) answers from it instead
// of a 503. One instance here; the shared hold is tested on two (tests/e2e/production.spec.ts).
const MEMBERS = "bapi GET /v1/organizations/:id/memberships";
let server: RunningServer;
let cookie: string;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  // Without webhooks, kept answers live seconds: a copy goes stale as soon as this test needs it to.
  server = await startServer({ CLERK_EMULATOR_WEBHOOKS: "off", METRICS_PORT: String(metricsPort) });
  cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
});
afterAll(() => server.stop());

const membersCalls = async () => (await emulatorCalls(server.origin))[MEMBERS] ?? 0;
const directory = async (query: string) => {
  const res = await fetch(`${server.origin}/orgs/analytical-engines/members?q=${query}`, {
    headers: { Cookie: cookie },
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), html: await res.text() };
};
const staleAnswers = async () =>
  (await scrapeMetrics(metricsPort)).get('cache_lookups_total{cache="memberPages",result="stale"}') ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Clerk answering 429", () => {
  it("holds the endpoint back for Retry-After, and serves a kept copy meanwhile", async () => {
    expect((await directory("grace")).status).toBe(200);
    // The copy is now older than its lifetime (2 s): a view would ask Clerk again.
    await sleep(2_200);

    await armFault(server.origin, { endpoint: MEMBERS, mode: "error", status: 429, retryAfter: "3", times: 1 });
    let calls = await membersCalls();
    const limited = await directory("ada");
    const heldAt = Date.now();
    expect(limited.status).toBe(503);
    expect(limited.retryAfter).toBe("3");
    expect(await membersCalls()).toBe(calls + 1);

    // Held back: no call; a page without a copy is a 503, one with a copy answers from it.
    calls = await membersCalls();
    const staleBefore = await staleAnswers();
    expect((await directory("alan")).status).toBe(503);
    const kept = await directory("grace");
    expect(kept.status).toBe(200);
    expect(kept.html).toContain("grace@example.com");
    expect(await membersCalls()).toBe(calls);
    expect(Date.now() - heldAt).toBeLessThan(3_000);
    expect(server.output()).toMatch(/"event":"cache_stale","cache":"memberPages"/);
    expect(await staleAnswers()).toBe(staleBefore + 1);

    // After Retry-After, calls start again.
    await sleep(3_000 - (Date.now() - heldAt) + 100);
    expect((await directory("alan")).status).toBe(200);
    expect(await membersCalls()).toBe(calls + 1);
  });
});
