import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrgCaches, type OrgCaches } from "../../app/lib/orgs/org-caches.server";
import { createCoordination, type Coordination } from "../../server/coordination";
import { redisCacheStore } from "../../server/redis-cache-store";
import { connectRedis } from "../../server/redis";
import { startRedisServer, type RedisServer } from "../support/process-group";

// What instances share through a real redis-server: webhook ids, holds after
// a 429, and forgets. Each "instance" is its own connections and caches.
let redis: RedisServer;
const opened: { client: Redis; coordination: Coordination }[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const { client, coordination } of opened) {
    await coordination.close();
    client.disconnect();
  }
  await redis.stop();
});

async function instance(): Promise<{ caches: OrgCaches; coordination: Coordination; client: Redis }> {
  const client = connectRedis(redis.url);
  await new Promise((ready) => client.once("ready", ready));
  const caches = createOrgCaches({ store: redisCacheStore(client), webhooks: true });
  const coordination = createCoordination(caches, { client, url: redis.url });
  opened.push({ client, coordination });
  // (A message published before an instance listens never reaches it.)
  await coordination.listening;
  return { caches, coordination, client };
}

const until = async (check: () => boolean | Promise<boolean>, ms = 2_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("not in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("instances coordinating through Redis", () => {
  it("a webhook's id is applied by one instance only; one given back (not applied) can be taken again", async () => {
    const [a, b] = [await instance(), await instance()];
    expect(await a.coordination.claim("msg_1")).toBe(true);
    expect(await b.coordination.claim("msg_1")).toBe(false);
    expect(await a.coordination.claim("msg_1")).toBe(false);
    await a.coordination.release("msg_1");
    expect(await b.coordination.claim("msg_1")).toBe(true);
    const both = await Promise.all([a.coordination.claim("msg_2"), b.coordination.claim("msg_2")]);
    expect(both.filter(Boolean)).toHaveLength(1);
  });

  it("a 429's hold reaches the other instances, and one that starts during it", async () => {
    const a = await instance();
    const b = await instance();
    const until3s = Date.now() + 3_000;
    a.coordination.backoff.hold("clerk.organizations.getOrganization", until3s);
    await until(() => b.coordination.backoff.heldUntil("clerk.organizations.getOrganization") === until3s);
    const late = await instance();
    await until(() => late.coordination.backoff.heldUntil("clerk.organizations.getOrganization") === until3s);
    expect(late.coordination.backoff.heldUntil("clerk.users.getUserList")).toBeNull();
    // A shorter hold after it does not cut the longer one's time in Redis.
    a.coordination.backoff.hold("clerk.users.getUserList", Date.now() + 500);
    await until(async () => (await a.client.hexists("teamwork:holds", "clerk.users.getUserList")) === 1);
    expect(await a.client.pttl("teamwork:holds")).toBeGreaterThan(1_500);
  });

  it("a forget drops the shared copy before the others are told, and their own copies", async () => {
    const [a, b] = [await instance(), await instance()];
    const key = `org_${Date.now()}`;
    let reads = 0;
    const profile = async () => ({ id: key, name: `read ${++reads}`, slug: null, imageUrl: null, membersCount: 1 });
    expect((await a.caches.profiles.get(key, profile)).name).toBe("read 1");
    await until(async () => (await a.client.exists(`teamwork:cache:profiles:${key}`)) === 1);
    expect((await b.caches.profiles.get(key, profile)).name).toBe("read 1");

    await a.coordination.forget([
      { cache: "memberPages", prefix: `${key}|` },
      { cache: "profiles", key },
    ]);
    expect(await a.client.exists(`teamwork:cache:profiles:${key}`)).toBe(0);
    await until(async () => (await b.caches.profiles.get(key, profile)).name === "read 2");
  });
});
