import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Charge, SharedCallWindow } from "../../app/lib/upstream/call-budget.server";
import { fleetWindowKey, redisCallWindow } from "../../app/lib/upstream/redis-call-window.server";
import type { SharedRedis } from "../../app/lib/redis-commands.server";
import { connectRedis } from "../../server/redis";
import { redisCallWindow as sortedSetWindow } from "../fixtures/budget-sorted-set/redis-call-window";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { unique } from "../support/shared-state";

// The fleet's windows of Clerk calls in a real redis-server: what a call costs
// Redis (commands, from INFO commandstats), that the limits still hold, and
// that the release before's instances, which keep the fleet's calls in a
// sorted set, share one limit with this release's during a rolling deploy.
let redis: RedisServer;
let admin: Redis;
const clients: SharedRedis[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url);
}, 30_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  admin?.disconnect();
  await redis?.stop();
});

async function client(): Promise<SharedRedis> {
  const connection = connectRedis({ url: redis.url });
  clients.push(connection);
  await once(connection, "ready");
  return connection;
}

const person = (limit = 60): Charge => ({ payer: `user:${unique("user")}`, limit, pool: null, deferrable: null });

/** The commands Redis ran for `act`, by name (INFO and CONFIG, the test's own, left out). */
async function commandsFor(act: () => Promise<unknown>): Promise<Record<string, number>> {
  await admin.config("RESETSTAT");
  await act();
  const calls: Record<string, number> = {};
  for (const [, name, count] of (await admin.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (!/^(info|config)/.test(name!)) calls[name!] = Number(count);
  }
  return calls;
}

async function windows(limit: number, windowMs = 11_000) {
  const fleetKey = unique("teamwork:clerk-budget");
  const window = redisCallWindow(await client(), { fleetKey, limit, windowMs });
  return { fleetKey, window };
}

describe("the fleet's windows of Clerk calls in Redis", () => {
  it("cost a person's call four commands: the script, the person's LPUSH and PEXPIRE, the fleet's LPUSH", async () => {
    const { window } = await windows(900);
    // The first call also looks for the release before's window (one ZCARD); later ones do not.
    expect(await commandsFor(() => window.take(Date.now(), person()))).toEqual({
      eval: 1,
      lpush: 2,
      pexpire: 1,
      zcard: 1,
    });
    expect(await commandsFor(() => window.take(Date.now(), person()))).toEqual({ eval: 1, lpush: 2, pexpire: 1 });
    // A deferrable call costs the same: its share is a limit on the fleet's window, not a window of its own.
    const deferrable = { ...person(), deferrable: { limit: 540 } };
    expect(await commandsFor(() => window.take(Date.now(), deferrable))).toEqual({ eval: 1, lpush: 2, pexpire: 1 });
  });

  it("hold the fleet's limit: the call past it is refused until the oldest leaves, counted nowhere, and the window drops what has left it", async () => {
    const { fleetKey, window } = await windows(5);
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) expect(await window.take(t0 + i, person())).toBeNull();
    const refusedPerson = person();
    expect(await window.take(t0 + 5, refusedPerson)).toEqual({ waitMs: 11_000 - 5, by: "fleet" });
    expect(await admin.llen(fleetWindowKey(fleetKey))).toBe(5);
    expect(await admin.keys(`*${refusedPerson.payer}`)).toEqual([]);
    // Once the first two have left the window: room, and they are dropped.
    expect(await window.take(t0 + 11_001, person())).toBeNull();
    expect(await admin.lrange(fleetWindowKey(fleetKey), 0, -1)).toEqual([11_001, 4, 3, 2].map((ms) => String(t0 + ms)));
  });

  it("let a deferrable call go only while the fleet's window is below its share; needed calls have the rest", async () => {
    const { fleetKey, window } = await windows(5);
    const deferrable = () => ({ ...person(), deferrable: { limit: 3 } });
    const t0 = Date.now();
    expect(await window.take(t0, person())).toBeNull();
    expect(await window.take(t0 + 1, deferrable())).toBeNull();
    expect(await window.take(t0 + 2, deferrable())).toBeNull();
    // Three calls in the window, needed or not: a deferrable one waits until the third newest leaves.
    expect(await window.take(t0 + 3, deferrable())).toEqual({ waitMs: 11_000 - 3, by: "deferrable" });
    expect(await window.take(t0 + 4, person())).toBeNull();
    expect(await window.take(t0 + 5, person())).toBeNull();
    expect(await window.take(t0 + 6, person())).toEqual({ waitMs: 11_000 - 6, by: "fleet" });
    expect(await admin.llen(fleetWindowKey(fleetKey))).toBe(5);
  });

  it("hold a person's allowance, which ends a minute after their last call", async () => {
    const { fleetKey, window } = await windows(100);
    const someone = person(2);
    const t0 = Date.now();
    expect(await window.take(t0, someone)).toBeNull();
    expect(await window.take(t0 + 1_000, someone)).toBeNull();
    expect(await window.take(t0 + 2_000, someone)).toEqual({ waitMs: 58_000, by: "allowance" });
    // Refused by their allowance: not counted in the fleet's window either.
    expect(await admin.llen(fleetWindowKey(fleetKey))).toBe(2);
    const life = await admin.pttl(`{${fleetKey}}:calls:${someone.payer}`);
    expect(life).toBeGreaterThan(58_000);
    expect(life).toBeLessThanOrEqual(60_000);
  });

  it("during a rolling deploy, count one limit with the release before's sorted set, and stop looking at it a window after it is gone", async () => {
    const fleetKey = unique("teamwork:clerk-budget");
    const windowMs = 1_000;
    const before = sortedSetWindow(await client(), { fleetKey, limit: 6, windowMs });
    const now = redisCallWindow(await client(), { fleetKey, limit: 6, windowMs });
    const taken: (SharedCallWindow | null)[] = [];
    for (let i = 0; i < 10; i++) {
      const release = i % 2 ? now : before;
      taken.push((await release.take(Date.now(), person())) === null ? release : null);
    }
    // Six calls in all between the two releases, each release refused past them.
    expect(taken.filter((t) => t !== null)).toHaveLength(6);
    expect(taken.slice(6)).toEqual([null, null, null, null]);
    expect(await admin.zcard(fleetKey)).toBe(6);

    // The release before stops; its sorted set ends a window after its last call. This release's
    // calls are in its own list all along: the count goes on from it, and soon costs no ZCARD.
    await new Promise((r) => setTimeout(r, windowMs + 100));
    expect(await admin.exists(fleetKey)).toBe(0);
    expect(await now.take(Date.now(), person())).toBeNull();
    await new Promise((r) => setTimeout(r, windowMs + 100));
    expect(await now.take(Date.now(), person())).toBeNull();
    expect(await commandsFor(() => now.take(Date.now(), person()))).toEqual({ eval: 1, lpush: 2, pexpire: 1 });
    // Never created again by this release.
    expect(await admin.exists(fleetKey)).toBe(0);
  });
});
