import { CLERK_BUDGET_KEY } from "../../server/redis-keys";
import { fleetWindowKey } from "../../app/lib/upstream/redis-call-window.server";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFERRABLE_SHARE } from "../../app/lib/upstream/call-budget.server";

import { backendApi, emulatorCalls, newTeam } from "../support/emulator-api";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { keysModeOn, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// The fleet's budget of Clerk calls, over real HTTP: two instances in keys
// mode share one redis-server and one budget of 10 calls per 10 s
// (CLERK_API_CALLS_PER_10S, counted over 11 s); a local-mode server stands in for Clerk and
// counts what reaches it. New organizations, so every first view is cold
// (its profile and newest members: two calls, both deferrable: they display), as after a deploy.
const BUDGET = 10;
/** What deferrable calls may use of it together (DEFERRABLE_SHARE): the rest is kept for needed ones. */
const DEFERRABLE = Math.floor(BUDGET * DEFERRABLE_SHARE);
let redis: RedisServer;
let clerk: RunningServer;
let a: RunningServer;
let b: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  redis = await startRedisServer();
  clerk = await startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_WEBHOOKS: "off" });
  bapi = backendApi(clerk.origin, clerk.dataDir);
  const { env, jwtKey } = keysModeOn(clerk, "clerk-call-budget-session-secret-0123456789");
  const instance = { ...env, CLERK_JWT_KEY: jwtKey, REDIS_URL: redis.url, CLERK_API_CALLS_PER_10S: String(BUDGET) };
  [a, b] = await Promise.all([startServer(instance), startServer(instance)]);
}, 60_000);

afterAll(async () => {
  for (const server of [a, b, clerk]) if (server) await server.stop();
  await redis?.stop();
});

/** Backend API calls Clerk (the stand-in) has answered, every endpoint. */
const clerkCalls = async () =>
  Object.entries(await emulatorCalls(clerk.origin)).reduce((sum, [k, n]) => (k.startsWith("bapi ") ? sum + n : sum), 0);

const view = async (server: RunningServer, path: string, cookie: string) => {
  const res = await fetch(server.origin + path, {
    headers: { Cookie: cookie, Accept: "text/html" },
    redirect: "manual",
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), html: await res.text() };
};

describe("the fleet's budget of Clerk calls", () => {
  it("is shared by two instances: past the display reads' share, pages on either answer 503 with Retry-After and Clerk sees no more of them, while needed calls still go, until the window moves on", async () => {
    const teams = await Promise.all(Array.from({ length: 7 }, () => newTeam(bapi)));
    const people = await Promise.all(
      teams.map(async (team) => ({
        home: `/orgs/${team.org.slug}`,
        cookie: await emulatorCookie(clerk.origin, team.admin.email, team.org.id),
      })),
    );
    const before = await clerkCalls();

    // Instance A spends the deferrable share on first views (two calls each).
    const onA: number[] = [];
    for (const person of people.slice(0, 4)) onA.push((await view(a, person.home, person.cookie)).status);
    expect(onA).toEqual([200, 200, 200, 503]);
    const spent = (await clerkCalls()) - before;
    expect(spent).toBe(DEFERRABLE);
    const admin = new Redis(redis.url);
    try {
      // Every call taken from the budget was one call made, and no call was made without one.
      expect(await admin.llen(fleetWindowKey(CLERK_BUDGET_KEY))).toBe(DEFERRABLE);
    } finally {
      admin.disconnect();
    }

    // Instance B has made no call, and may make none: the budget is the fleet's.
    const refused = await view(b, people[4]!.home, people[4]!.cookie);
    expect(refused.status).toBe(503);
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // The window is Clerk's 10 s and a second's allowance for a call's way there.
    expect(retryAfter).toBeLessThanOrEqual(11);
    expect(refused.html).toContain("temporarily unavailable");
    // A page's data request (JavaScript on) gets the same answer, and repeating it calls nothing.
    const data = await fetch(`${b.origin}${people[5]!.home}.data`, { headers: { Cookie: people[5]!.cookie } });
    expect(data.status).toBe(503);
    expect(Number(data.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect((await view(b, people[5]!.home, people[5]!.cookie)).status).toBe(503);
    // Many people at once on one cold page share its reads, and each gets the 503 (not a 500).
    const together = await Promise.all(Array.from({ length: 8 }, () => view(b, people[5]!.home, people[5]!.cookie)));
    expect(together.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 503));
    expect((await clerkCalls()) - before).toBe(DEFERRABLE);
    expect(b.output()).toMatch(/"event":"upstream_budget"/);

    // A needed call still goes: signing out without JavaScript ends the session in Clerk (a revoke).
    const signOut = await fetch(`${b.origin}/resources/sign-out`, {
      method: "POST",
      headers: {
        Cookie: people[6]!.cookie,
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: b.origin,
        Accept: "text/html",
      },
      body: "",
      redirect: "manual",
    });
    expect(signOut.status).toBe(303);
    // (And the browser drops its copies of the person's pages: disk, and the back/forward cache.)
    expect(signOut.headers.get("clear-site-data")).toBe('"cache"');
    expect((await clerkCalls()) - before).toBe(DEFERRABLE + 1);

    // Once Retry-After has passed, the window has room again: B's page is read and shown.
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200));
    const later = await view(b, people[4]!.home, people[4]!.cookie);
    expect(later.status).toBe(200);
    expect((await clerkCalls()) - before).toBeGreaterThan(DEFERRABLE + 1);
    expect((await clerkCalls()) - before).toBeLessThanOrEqual(2 * BUDGET);
  }, 60_000);

  it("with Redis away, is counted per process: each instance spends a budget of its own, and answers 503 past it, never 500", async () => {
    const teams = await Promise.all(Array.from({ length: 8 }, () => newTeam(bapi)));
    const people = await Promise.all(
      teams.map(async (team) => ({
        home: `/orgs/${team.org.slug}`,
        cookie: await emulatorCookie(clerk.origin, team.admin.email, team.org.id),
      })),
    );
    await redis.stop();
    const before = await clerkCalls();
    const statuses = { a: [] as number[], b: [] as number[] };
    for (const [server, group, seen] of [
      [a, people.slice(0, 4), statuses.a],
      [b, people.slice(4), statuses.b],
    ] as const) {
      for (const person of group) {
        const page = await view(server, person.home, person.cookie);
        seen.push(page.status);
        if (page.status === 503) expect(Number(page.retryAfter)).toBeGreaterThanOrEqual(1);
      }
    }
    for (const seen of [statuses.a, statuses.b]) {
      expect(seen[0]).toBe(200);
      expect(seen).toContain(503);
      expect(seen.every((status) => status === 200 || status === 503)).toBe(true);
    }
    // More than the fleet's share (neither knows what the other spent), none past an instance's own.
    const calls = (await clerkCalls()) - before;
    expect(calls).toBeGreaterThan(DEFERRABLE);
    expect(calls).toBeLessThanOrEqual(2 * DEFERRABLE);
    expect(a.output()).toContain("counted per process until it is back");
  }, 60_000);
});
