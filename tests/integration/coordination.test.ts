import { once } from "node:events";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOrgCaches, type OrgCaches } from "../../app/lib/cache/org-caches.server";
import type { FleetCaches } from "../../app/lib/cache/fleet.server";
import { createCoordination, type Coordination } from "../../server/coordination";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import type { SharedRedis } from "../../app/lib/redis-commands.server";
import { connectRedis } from "../../server/redis";
import { CACHE_PREFIXES, redisKey } from "../../server/redis-keys";
import { freePort } from "../support/server";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { newWebhookSecret, signedWebhook } from "../support/webhooks";
import { inFleet, profile, unique, until, webhookEndpoint } from "../support/shared-state";

// What instances share through a real redis-server: webhook ids, holds after
// a 429, and forgets. Each "instance" is its own connections and caches; the
// webhook endpoint is mounted on a small server of its own.
let redis: RedisServer;
let admin: Redis;
const closing: (() => unknown)[] = [];
const SECRET = newWebhookSecret();

beforeAll(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url);
});
// Each test's instances, relays and endpoints go with it; redis-server with the file.
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

type Instance = { caches: OrgCaches; coordination: Coordination; fleet: FleetCaches; client: SharedRedis };

/** An instance; `via`: its connections go through that address (a relay the test can cut), `subscriberVia` its subscriber's only. */
async function instance({
  via = redis.url,
  subscriberVia = via,
  applyingForMs,
}: { via?: string; subscriberVia?: string; applyingForMs?: number } = {}): Promise<Instance> {
  const client = connectRedis({ url: via });
  await once(client, "ready");
  const caches = createOrgCaches({ store: redisCacheStore(client, CACHE_PREFIXES), webhooks: true });
  const coordination = createCoordination({ client, config: { url: subscriberVia } }, { applyingForMs });
  closing.push(
    () => coordination.close(),
    () => client.disconnect(),
  );
  // (A message published before an instance listens never reaches it.)
  await coordination.listening;
  return { caches, coordination, fleet: inFleet(caches, coordination), client };
}

/** A TCP relay to redis-server: `cut` drops every connection through it and refuses new ones until `mend`. */
async function relay() {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(redis.port, "127.0.0.1");
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => (sockets.delete(from), to.destroy()));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const cut = () => {
    refusing = true;
    for (const socket of sockets) socket.destroy();
  };
  closing.push(() => (cut(), new Promise((done) => server.close(done))));
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, cut, mend: () => (refusing = false) };
}

/** Svix's next delivery of a message: the same id, signed anew. */
const retryOf = (webhook: ReturnType<typeof signedWebhook>, event: Parameters<typeof signedWebhook>[1]) =>
  signedWebhook(SECRET, event, { id: webhook.headers["svix-id"] });

/** Whether Redis holds a copy of the key that a read would serve (a forgotten one stays until it expires, unserved). */
const inRedis = async (cache: string, key: string) =>
  (await redisCacheStore(admin, CACHE_PREFIXES).read(cache, key)).stored !== null;

describe("instances coordinating through Redis", () => {
  it("a webhook's id is applied by one instance only; one given back, or left applying, can be taken again", async () => {
    const [a, b] = [await instance({ applyingForMs: 300 }), await instance()];
    expect(await a.coordination.claim("msg_1")).toBe("claimed");
    expect(await b.coordination.claim("msg_1")).toBe("applying");
    await a.coordination.release("msg_1");
    expect(await b.coordination.claim("msg_1")).toBe("claimed");
    await b.coordination.applied("msg_1");
    expect(await a.coordination.claim("msg_1")).toBe("applied");
    const both = await Promise.all([a.coordination.claim("msg_2"), b.coordination.claim("msg_2")]);
    expect(both.sort()).toEqual(["applying", "claimed"]);
    // Neither given back nor marked applied (Redis went away): free again after its short claim.
    expect(await a.coordination.claim("msg_3")).toBe("claimed");
    await until(async () => (await b.coordination.claim("msg_3")) === "claimed");
  });

  it("without Redis, an id is claimed, applying and applied the same way", async () => {
    let time = 0;
    const one = createCoordination(null, { now: () => time, applyingForMs: 30_000 });
    expect(await one.claim("msg_1")).toBe("claimed");
    expect(await one.claim("msg_1")).toBe("applying");
    await one.release("msg_1");
    expect(await one.claim("msg_1")).toBe("claimed");
    await one.applied("msg_1");
    time += 599_000;
    expect(await one.claim("msg_1")).toBe("applied");
    expect(await one.claim("msg_2")).toBe("claimed");
    time += 30_000;
    expect(await one.claim("msg_2")).toBe("claimed");
    expect(await one.claim("msg_1")).toBe("claimed");
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
    await until(async () => (await a.client.hexists(redisKey("holds"), "clerk.users.getUserList")) === 1);
    expect(await a.client.pttl(redisKey("holds"))).toBeGreaterThan(1_500);
  });

  it("a forget drops the shared copy before the others are told, and their own copies", async () => {
    const [a, b] = [await instance(), await instance()];
    const key = unique("org");
    let reads = 0;
    const read = async () => profile(key, `read ${++reads}`);
    expect((await a.caches.profiles.get(key, read)).name).toBe("read 1");
    await until(() => inRedis("profiles", key));
    expect((await b.caches.profiles.get(key, read)).name).toBe("read 1");

    await a.fleet.forget([
      { cache: "memberPages", prefix: `${key}|` },
      { cache: "profiles", key },
    ]);
    expect(await inRedis("profiles", key)).toBe(false);
    await until(async () => (await b.caches.profiles.get(key, read)).name === "read 2");
  });
});

describe("a webhook when Redis fails", () => {
  // Each outage starts after the id is claimed (while the person's organizations are looked up) and ends after the answer.
  const outages = {
    "Redis turned read-only (a failover)": {
      start: async () => void (await admin.call("REPLICAOF", "127.0.0.1", String(await freePort()))),
      end: async () => void (await admin.call("REPLICAOF", "NO", "ONE")),
    },
    "the instance's connection to Redis cut": {
      start: async (relayed: Awaited<ReturnType<typeof relay>>, a: Instance) => {
        relayed.cut();
        await until(() => a.client.status !== "ready");
      },
      end: async (relayed: Awaited<ReturnType<typeof relay>>, a: Instance) => {
        relayed.mend();
        await until(() => a.client.status === "ready", 5_000);
      },
    },
  };

  for (const [outage, { start, end }] of Object.entries(outages)) {
    it(`${outage}: 503, nothing kept as applied, and Svix's retry once Redis is back applies it`, async () => {
      const relayed = await relay();
      const a = await instance({ via: relayed.url, applyingForMs: 1_000 });
      const b = await instance();
      const [org, user] = [unique("org"), unique("user")];
      const members = (total: number) => async () => ({ members: [], total });
      await a.caches.latestMembers.get(org, members(1));
      await until(() => inRedis("latestMembers", org));
      expect((await b.caches.latestMembers.get(org, members(1))).total).toBe(1);

      let failing = true;
      const deliver = await webhookEndpoint(
        { caches: a.caches, coordination: a.coordination, secret: SECRET, closing },
        async () => {
          if (failing) await start(relayed, a);
          return [org];
        },
      );
      const renamed = { type: "user.updated", data: { id: user, object: "user", first_name: "Augusta" } };
      const webhook = signedWebhook(SECRET, renamed);
      try {
        expect(await deliver(webhook)).toEqual({
          status: 503,
          message: "Redis or Clerk is unavailable; try again later.",
        });
      } finally {
        failing = false;
        await end(relayed, a);
      }
      // Not dropped, so not acknowledged: the copy is still there.
      expect(await inRedis("latestMembers", org)).toBe(true);
      // Svix retries at 5 s: the failed delivery's claim (1 s here, 30 s in production) still stands…
      expect(await deliver(retryOf(webhook, renamed))).toEqual({
        status: 503,
        message: "This message is being applied; try again later.",
      });
      // …and its next retry applies it.
      let last = { status: 0, message: "" };
      await until(async () => (last = await deliver(retryOf(webhook, renamed))).status !== 503, 3_000);
      expect(last).toEqual({ status: 200, message: "Applied." });
      expect(await inRedis("latestMembers", org)).toBe(false);
      await until(async () => (await b.caches.latestMembers.get(org, members(2))).total === 2, 1_000);
      expect(await deliver(retryOf(webhook, renamed))).toEqual({ status: 200, message: "Already applied." });
    });
  }
});

describe("a webhook whose id cannot be claimed, the caches' keys reachable (a cluster's node failing over)", () => {
  it("drops what the change touches at once, answers 503, and Svix's retry applies it", async () => {
    // A Redis user that may touch the caches' keys and channels but not the webhook claims:
    // as an instance sees a cluster whose node holding the claim's slot is down.
    const user = unique("instance");
    await admin.call(
      "ACL",
      "SETUSER",
      user,
      "on",
      ">pw",
      "allcommands",
      "allchannels",
      `~${redisKey("cache")}*`,
      "~teamwork:cache*",
    );
    closing.push(() => admin.call("ACL", "DELUSER", user));
    const a = await instance({ via: `redis://${user}:pw@127.0.0.1:${redis.port}` });
    const b = await instance();
    const [org, person] = [unique("org"), unique("user")];
    const members = (total: number) => async () => ({ members: [], total });
    await b.caches.latestMembers.get(org, members(1));
    await until(() => inRedis("latestMembers", org));

    const deliver = await webhookEndpoint(
      { caches: a.caches, coordination: a.coordination, secret: SECRET, closing },
      async () => [org],
    );
    const renamed = { type: "user.updated", data: { id: person, object: "user", first_name: "Augusta" } };
    const webhook = signedWebhook(SECRET, renamed);
    expect(await deliver(webhook)).toEqual({ status: 503, message: "Redis or Clerk is unavailable; try again later." });
    // Not acknowledged, but already dropped: from Redis, and (told through the channel) from b's own copy.
    expect(await inRedis("latestMembers", org)).toBe(false);
    await until(async () => (await b.caches.latestMembers.get(org, members(2))).total === 2, 1_000);

    // The node is back (its replica promoted): Svix's retry applies it, once.
    await admin.call("ACL", "SETUSER", user, "allkeys");
    expect(await deliver(retryOf(webhook, renamed))).toEqual({ status: 200, message: "Applied." });
    expect(await deliver(retryOf(webhook, renamed))).toEqual({ status: 200, message: "Already applied." });
  });
});

describe("a webhook for an event no kept answer depends on", () => {
  it("is acknowledged without a claim, whatever Redis's state: Clerk sends one for every sign-in", async () => {
    // An instance whose Redis user may touch no key at all.
    const user = unique("instance");
    await admin.call("ACL", "SETUSER", user, "on", ">pw", "allcommands", "allchannels");
    closing.push(() => admin.call("ACL", "DELUSER", user));
    const a = await instance({ via: `redis://${user}:pw@127.0.0.1:${redis.port}` });
    const deliver = await webhookEndpoint({ caches: a.caches, coordination: a.coordination, secret: SECRET, closing });
    for (const type of ["session.created", "email.created"]) {
      const webhook = signedWebhook(SECRET, { type, data: { id: unique("sess"), object: "session" } });
      expect(await deliver(webhook), type).toEqual({ status: 200, message: "Nothing to do." });
      expect(await admin.exists(redisKey(`webhook:${webhook.headers["svix-id"]}`))).toBe(0);
    }
    // One the caches depend on still needs its claim.
    const renamed = { type: "organization.updated", data: { id: unique("org"), object: "organization", name: "X" } };
    expect((await deliver(signedWebhook(SECRET, renamed))).status).toBe(503);
  });
});

describe("an instance that misses the message", () => {
  it("serves its own copy at most 5 s, and never writes back to Redis a read begun before the change", async () => {
    const relayed = await relay();
    const a = await instance();
    const b = await instance({ subscriberVia: relayed.url });
    const deliver = await webhookEndpoint({ caches: a.caches, coordination: a.coordination, secret: SECRET, closing });
    /** A Clerk read on b, held open until the test answers it. */
    const readOnB = async (org: string) => {
      let began: () => void = () => undefined;
      let answer: (name: string) => void = () => undefined;
      const begun = new Promise<void>((resolve) => (began = resolve));
      const read = b.caches.profiles.get(org, () => {
        began();
        return new Promise((resolve) => (answer = (name) => resolve(profile(org, name))));
      });
      await begun;
      return { answer: (name: string) => (answer(name), read) };
    };

    // With nothing changed meanwhile, b's read is kept for every instance.
    const control = unique("org");
    const kept = await readOnB(control);
    expect((await kept.answer("read by b")).name).toBe("read by b");
    await b.client.ping();
    expect(await inRedis("profiles", control)).toBe(true);

    const org = unique("org");
    const underWay = await readOnB(org);
    // b's subscriber is cut off (reconnecting): only a listens.
    relayed.cut();
    await until(async () => (await admin.pubsub("NUMSUB", "teamwork:coordination"))[1] === 1);
    const changed = Date.now();
    const renamed = { type: "organization.updated", data: { id: org, object: "organization", name: "New name" } };
    expect(await deliver(signedWebhook(SECRET, renamed))).toEqual({ status: 200, message: "Applied." });
    expect((await underWay.answer("Old name")).name).toBe("Old name");
    // b's write, had it made one, has reached Redis (one connection answers in order).
    await b.client.ping();
    expect(await inRedis("profiles", org)).toBe(false);
    relayed.mend();

    const fresh = async () => profile(org, "New name");
    expect((await a.caches.profiles.get(org, fresh)).name).toBe("New name");
    // b missed the change: its own copy stands, only until 5 s after its read began (before the change).
    expect((await b.caches.profiles.get(org, fresh)).name).toBe("Old name");
    await new Promise((r) => setTimeout(r, changed + 5_000 - Date.now()));
    expect((await b.caches.profiles.get(org, fresh)).name).toBe("New name");
  });
});
