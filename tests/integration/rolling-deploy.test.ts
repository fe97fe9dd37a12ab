import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { withoutLeads } from "../../app/lib/cache/store.server";
import { createOrgCaches, type CacheKey, type OrgCaches } from "../../app/lib/cache/org-caches.server";
import { createCoordination } from "../../server/coordination";
import { connectRedis } from "../../server/redis";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import { CACHE_PREFIXES, COORDINATION_CHANNEL, redisKey } from "../../server/redis-keys";
import { createCoordination as createFormat1Coordination } from "../fixtures/redis-format-1/coordination";
import { redisCacheStore as format1Store } from "../fixtures/redis-format-1/redis-cache-store";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { inFleet, profile, unique, until } from "../support/shared-state";

// A rolling deploy: instances of the release before (format 1, its Redis code
// kept as a fixture) and of this one (format 2) share one redis-server for the
// minutes it takes. Neither reads the other's values; each one's changes reach
// the other's copies, shared and its own.
let redis: RedisServer;
let admin: Redis;
const closing: (() => unknown)[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url);
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

type Instance = {
  release: string;
  caches: OrgCaches;
  coordination: Pick<ReturnType<typeof createCoordination>, "claim" | "backoff">;
  /** Forgets the keys on every instance of both releases, and in Redis: what Clerk's webhook makes it do. */
  forget(keys: CacheKey[]): Promise<void>;
};

/** An instance of this release, as server/services.ts makes it. */
async function current(): Promise<Instance> {
  const client = connectRedis({ url: redis.url });
  await once(client, "ready");
  const caches = createOrgCaches({ store: redisCacheStore(client, CACHE_PREFIXES), webhooks: true });
  const coordination = createCoordination({ client, config: { url: redis.url } });
  const fleet = inFleet(caches, coordination);
  closing.push(
    () => coordination.close(),
    () => client.disconnect(),
  );
  await coordination.listening;
  return { release: "format 2", caches, coordination, forget: fleet.forget };
}

/** An instance of the release before, as its services.ts made it. */
async function previous(): Promise<Instance> {
  const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await once(client, "ready");
  // (Its caches had no single flight: every miss read Clerk.)
  const caches = createOrgCaches({ store: withoutLeads(format1Store(client)), webhooks: true });
  const coordination = createFormat1Coordination(caches, { client, url: redis.url });
  closing.push(
    () => coordination.close(),
    () => client.disconnect(),
  );
  await coordination.listening;
  return { release: "format 1", caches, coordination, forget: (keys) => coordination.forget(keys) };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe.each([
  ["this release", current, "the release before", previous],
  ["the release before", previous, "this release", current],
] as const)("a change %s hears", (_, teller, __, other) => {
  it(`reaches the copies of ${"the other release"}: its instances' own and the ones it keeps in Redis`, async () => {
    const told = await teller();
    // One instance of the other release reads the organization (its copy, and one kept in Redis);
    // a second one, with nothing of its own, would find that copy in Redis.
    const [reader, fresh] = [await other(), await other()];
    const org = unique("org");
    let reads = 0;
    const read = async () => profile(org, `read ${++reads}`);
    expect((await reader.caches.profiles.get(org, read)).name).toBe("read 1");
    await settle();
    expect((await fresh.caches.profiles.get(org, read)).name).toBe("read 1");

    // Clerk's webhook reaches an instance of the release that tells.
    await told.forget([{ cache: "profiles", key: org }]);

    // Both instances of the other release read Clerk again: the reader's own copy went, and Redis's.
    await until(async () => (await reader.caches.profiles.get(org, read)).name !== "read 1");
    const late = await other();
    expect((await late.caches.profiles.get(org, read)).name).not.toBe("read 1");
  });
});

describe("two releases side by side", () => {
  it("keep their values apart: this release writes only under its format, the one before only outside it", async () => {
    const [now, before] = [await current(), await previous()];
    const [a, b] = [unique("org"), unique("org")];
    await now.caches.profiles.get(a, async () => profile(a, "now"));
    await before.caches.profiles.get(b, async () => profile(b, "before"));
    await now.coordination.claim(unique("msg"));
    await before.coordination.claim(unique("msg"));
    now.coordination.backoff.hold("clerk.test.now", Date.now() + 2_000);
    await settle();
    const keys = await admin.keys("*");
    const mine = (key: string) => key.includes(a) || key.includes("webhook") || key.includes("holds");
    const ofThisRelease = keys.filter((key) => key.startsWith(redisKey("")));
    const ofTheOneBefore = keys.filter((key) => key.startsWith("teamwork:") && !key.startsWith(redisKey("")));
    expect(ofThisRelease.filter(mine).length).toBeGreaterThanOrEqual(4);
    expect(ofThisRelease.some((key) => key.includes(b))).toBe(false);
    expect(ofTheOneBefore.some((key) => key.includes(`}:${a}`) || key.includes(`:${a}`))).toBe(false);
  });

  it("a webhook one release is applying is never taken as applied by the other", async () => {
    const [now, before] = [await current(), await previous()];
    // (The release before took any claim it did not write as applied, and acknowledged the webhook unapplied.)
    const pairs: [Instance, Instance][] = [
      [now, before],
      [before, now],
    ];
    for (const [first, second] of pairs) {
      const id = unique("msg");
      expect(await first.coordination.claim(id)).toBe("claimed");
      expect(await second.coordination.claim(id), `${second.release} after ${first.release}`).not.toBe("applied");
    }
  });

  it("a 429 one release meets holds the other back too", async () => {
    const pairs: [Instance, Instance][] = [
      [await current(), await previous()],
      [await previous(), await current()],
    ];
    for (const [holder, held] of pairs) {
      const upstream = unique("clerk.upstream");
      const until2s = Date.now() + 2_000;
      holder.coordination.backoff.hold(upstream, until2s);
      await until(() => held.coordination.backoff.heldUntil(upstream) === until2s);
    }
  });

  it("a message this release cannot read (a newer kind, a stray PUBLISH) is ignored, not thrown", async () => {
    const now = await current();
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on("uncaughtException", onError);
    closing.push(() => process.off("uncaughtException", onError));
    for (const stray of [
      "not json",
      "null",
      "{}",
      JSON.stringify({ from: "x", format: 3, purge: ["everything"] }),
      JSON.stringify({ from: "x", format: 3, keys: [{ cache: "aNewerCache", key: "org_1" }] }),
      JSON.stringify({ from: "x", keys: [{ cache: "profiles" }, null] }),
    ]) {
      await admin.publish(COORDINATION_CHANNEL, stray);
    }
    // It still hears the ones it can.
    const upstream = unique("clerk.upstream");
    const until2s = Date.now() + 2_000;
    await admin.publish(
      COORDINATION_CHANNEL,
      JSON.stringify({ from: "x", format: 3, hold: { upstream, until: until2s } }),
    );
    await until(() => now.coordination.backoff.heldUntil(upstream) === until2s);
    expect(errors).toEqual([]);
  });
});
