import { CACHE_PREFIXES } from "../../server/redis-keys";
import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCache, type CacheStore, type SharedCache } from "../../app/lib/cache/shared-cache.server";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import { connectRedis, type RedisConfig } from "../../server/redis";
import { isCluster } from "../../app/lib/redis-commands.server";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";
import { clerkStandIn, notAsked, unique, until } from "../support/shared-state";

// Instances missing one key at once, each with its own connection, store and
// cache (as processes are), over a real redis-server and a real Redis Cluster:
// Clerk is asked once for the fleet, and the generations' guarantees hold.
let redis: RedisServer | undefined;
let cluster: RedisCluster | undefined;
const closing: (() => unknown)[] = [];

beforeAll(async () => {
  try {
    redis = await startRedisServer();
    cluster = await startRedisCluster();
  } catch (error) {
    await redis?.stop();
    throw error;
  }
}, 60_000);
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await redis?.stop();
  await cluster?.stop();
});

/** An instance's cache, and how often the store refused it a lease. */
type Instance = SharedCache<string> & { refused: () => number };

const backends: [string, () => RedisConfig][] = [
  ["one redis-server", () => ({ url: redis!.url })],
  ["a Redis Cluster", () => ({ clusterUrls: cluster!.urls })],
];

describe.each(backends)("on %s", (_name, config) => {
  /**
   * An instance's cache of `family` (its own copies kept 1 ms: every get goes to Redis), and how often the
   * store refused it a lease: once it has, it is waiting for another instance's read.
   */
  async function instance(family: string): Promise<Instance> {
    const client = connectRedis(config());
    closing.push(() => client.disconnect());
    await once(client, "ready");
    // A cluster client opens each node's connection at its first command there: opened now, so that no
    // instance's first read is still under way (one node answered, the other not yet) when a test moves on.
    if (isCluster(client)) await Promise.all(client.nodes("master").map((node) => node.ping()));
    const store = redisCacheStore(client, CACHE_PREFIXES);
    let refused = 0;
    const lead: CacheStore["lead"] = async (...args) => {
      const lease = await store.lead(...args);
      if (lease === null) refused++;
      return lease;
    };
    const cache = createCache<string>({ name: family, localTtlMs: 1, sharedTtlMs: 60_000, store: { ...store, lead } });
    return Object.assign(cache, { refused: () => refused });
  }
  const fleet = async (size: number) => {
    const family = unique("family");
    return { family, caches: await Promise.all(Array.from({ length: size }, () => instance(family))) };
  };
  /** Until `count` of `caches` are waiting for another's read (the store refused each the key's lease). */
  const untilWaiting = (caches: Instance[], count = caches.length) =>
    until(() => caches.filter((cache) => cache.refused() > 0).length >= count);

  it("six instances missing the same key at once ask Clerk once (twice at most)", async () => {
    const { caches } = await fleet(6);
    const source = clerkStandIn();
    const reads = caches.map((cache) => cache.get("org_1", source.load));
    await source.asked();
    // The others are waiting (each was refused the lease the first one holds).
    await untilWaiting(caches, caches.length - 1);
    // (Every read asked is answered, now and later: a fleet without single flight fails on the count, not on a hang.)
    source.answerAll("read once");
    const stray = setInterval(() => source.answerAll("read once"), 100);
    closing.push(() => clearInterval(stray));
    expect(await Promise.all(reads)).toEqual(caches.map(() => "read once"));
    // One read, or two when a waiter won the lease in the one round trip in which the answer landed: the
    // lead is the SET NX alone (43d87c4), at the cost of that rare extra read.
    expect(source.calls()).toBeLessThanOrEqual(2);
  });

  it("a reader that fails lets the waiters go at once: one of them reads, the rest take its answer", async () => {
    const { caches } = await fleet(4);
    const [first, ...others] = caches;
    const source = clerkStandIn();
    const failed = first!.get("org_1", source.load);
    await source.asked();
    const waiting = others.map((cache) => cache.get("org_1", source.load));
    await untilWaiting(others);
    const failedAt = Date.now();
    source.fail(new Error("Clerk said no"));
    await expect(failed).rejects.toThrow("Clerk said no");
    await source.asked();
    // Within a look or two (20 to 250 ms apart), not at the end of the 1.5 s wait.
    expect(Date.now() - failedAt).toBeLessThan(1_000);
    source.answer("read again");
    // (A waiter that asked Clerk too is answered, so the count below says so rather than the test hanging.)
    const stray = setInterval(() => source.answerAll("read by a stray waiter"), 100);
    closing.push(() => clearInterval(stray));
    // One waiter reads and the others take its answer, save at most one whose lease came in the one round
    // trip in which that answer landed: the lead is the SET NX alone, at the cost of that rare extra read.
    const answers = await Promise.all(waiting);
    expect(answers.filter((answer) => answer === "read again").length).toBeGreaterThanOrEqual(others.length - 1);
    expect(source.calls()).toBeLessThanOrEqual(3);
  });

  it("a forget during the read refuses its answer: the waiters do not take it, one reads after the forget", async () => {
    const { family, caches } = await fleet(4);
    const [reader, waiter, forgetter, later] = caches as [Instance, ...Instance[]];
    await reader.get("org_0", async () => "warm");
    const source = clerkStandIn();
    const before = reader.get("org_1", source.load);
    await source.asked();
    const waiting = waiter!.get("org_1", source.load);
    await untilWaiting([waiter!]);
    forgetter!.forget("org_1");
    await forgetter!.forgotten();
    source.answer("read before the change");
    expect(await before).toBe("read before the change");
    await source.asked();
    source.answer("read after the change");
    expect(await waiting).toBe("read after the change");
    // Kept in Redis for every instance (the write is not awaited by get): the answer read after the forget.
    const client = connectRedis(config());
    closing.push(() => client.disconnect());
    await once(client, "ready");
    const store = redisCacheStore(client, CACHE_PREFIXES);
    await until(async () => (await store.read(family, "org_1").catch(() => null))?.stored !== null);
    expect(await later!.get("org_1", notAsked)).toBe("read after the change");
  });

  it("update keeps next(current) for every instance, and beats a write of a read begun before it", async () => {
    const { caches } = await fleet(3);
    const [a, b, c] = caches as [Instance, Instance, Instance];
    await a.get("org_1", async () => "Acme");
    await until(async () => (await c.get("org_1", async () => "not yet kept")) === "Acme");
    await b.update("org_1", (current) => `${current} Inc.`);
    expect(await c.get("org_1", notAsked)).toBe("Acme Inc.");

    // A read of org_1's group under way on a, begun before the next change.
    const source = clerkStandIn();
    const before = a.get("org_1|members", source.load);
    await source.asked();
    await b.update("org_1", () => "Acme Ltd.");
    source.answer("members read before the rename");
    expect(await before).toBe("members read before the rename");
    await new Promise((r) => setTimeout(r, 50));
    expect(await c.get("org_1", notAsked)).toBe("Acme Ltd.");
    expect(await c.get("org_1|members", async () => "read after")).toBe("read after");
    // null forgets.
    await b.update("org_1", () => null);
    expect(await c.get("org_1", async () => "read again")).toBe("read again");
  });
});

describe("update on one redis-server", () => {
  it("forgets instead when the group moved between its read of current and its write", async () => {
    const client = connectRedis({ url: redis!.url });
    closing.push(() => client.disconnect());
    await once(client, "ready");
    const store = redisCacheStore(client, CACHE_PREFIXES);
    const family = unique("family");
    const cache = createCache<string>({ name: family, localTtlMs: 1, sharedTtlMs: 60_000, store });
    await cache.get("org_1", async () => "Acme");
    await until(async () => (await store.read(family, "org_1")).stored !== null);
    // A forget sent on the same connection while `next` runs: Redis carries it out before the update's write.
    await cache.update("org_1", (current) => {
      void store.delete(family, "org_1");
      return `${current} Inc.`;
    });
    expect((await store.read(family, "org_1")).stored).toBeNull();
  });

  it("a waiter costs Redis a SET NX and one MGET a look", async () => {
    const admin = new Redis(redis!.url);
    closing.push(() => admin.disconnect());
    const client = connectRedis({ url: redis!.url });
    closing.push(() => client.disconnect());
    await once(client, "ready");
    const family = unique("family");
    const [reader, waiter] = [0, 1].map(() =>
      createCache<string>({
        name: family,
        localTtlMs: 1,
        sharedTtlMs: 60_000,
        store: redisCacheStore(client, CACHE_PREFIXES),
      }),
    );
    const source = clerkStandIn();
    const read = reader!.get("org_1", source.load);
    await source.asked();
    await admin.config("RESETSTAT");
    const waiting = waiter!.get("org_1", source.load);
    // Its first three looks (20 + 40 + 80 ms), then the answer.
    await new Promise((r) => setTimeout(r, 200));
    source.answer("read once");
    expect(await waiting).toBe("read once");
    await read;
    const stats = await admin.info("commandstats");
    const calls = Object.fromEntries(
      [...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map(([, name, count]) => [name, Number(count)]),
    );
    console.info(`a waiter and its reader's write: ${JSON.stringify(calls)}`);
    // The waiter's read, its SET NX with the MGET beside it, and its looks (at most nine); the reader's
    // write script (the SET inside).
    expect(calls.set).toBe(2);
    expect(calls.mget).toBeGreaterThanOrEqual(2 + 3);
    expect(calls.mget).toBeLessThanOrEqual(2 + 9);
  });
});
