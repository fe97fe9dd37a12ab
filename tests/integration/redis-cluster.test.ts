import { once } from "node:events";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRateLimiter } from "../../app/lib/http/rate-limit.server";
import { createOrgCaches, type OrgCaches } from "../../app/lib/cache/org-caches.server";
import { createCache } from "../../app/lib/cache/shared-cache.server";
import { createCallBudget } from "../../app/lib/upstream/call-budget.server";
import { personPays } from "../../app/lib/upstream/payer.server";
import { redisCallWindow } from "../../app/lib/upstream/redis-call-window.server";
import type { FleetCaches } from "../../app/lib/cache/fleet.server";
import { createCoordination, type Coordination } from "../../server/coordination";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import { redisMembershipIndex } from "../../app/lib/cache/redis-membership-index.server";
import { isCluster, type SharedRedis } from "../../app/lib/redis-commands.server";
import { connectRedis } from "../../server/redis";
import { CACHE_PREFIXES, CLERK_BUDGET_KEY, redisKey } from "../../server/redis-keys";
import { startRedisCluster, type ClusterNode, type RedisCluster } from "../support/redis-cluster";
import { runModel, stepArbitrary } from "../support/versioned-copies-model";
import { newWebhookSecret, signedWebhook } from "../support/webhooks";
import {
  inFleet,
  notAsked,
  page,
  profile,
  readUnderWay,
  unique,
  until,
  webhookEndpoint,
} from "../support/shared-state";

// What instances share, on a real Redis Cluster (3 primaries, 3 replicas)
// through ioredis' cluster client, as REDIS_CLUSTER_URLS runs them: the same
// cases coordination.test.ts and cache-costs.test.ts check on one
// redis-server, with keys spread over every primary. No command may fail with
// CROSSSLOT (checked on every node after each test), and none may walk the
// keyspace.
let cluster: RedisCluster;
const closing: (() => unknown)[] = [];
const SECRET = newWebhookSecret();

beforeAll(async () => {
  cluster = await startRedisCluster();
});
// Each test's CROSSSLOT count starts at 0 (CONFIG RESETSTAT), and is checked after it.
beforeEach(() => cluster.resetStats());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  // A script or pipeline whose keys are in several slots fails with CROSSSLOT;
  // the code may catch it (a write dropped, a read missed), the node counts it.
  for (const node of cluster.nodes) {
    if (down.has(node)) continue;
    expect((await cluster.errorCounts(node)).CROSSSLOT ?? 0, `CROSSSLOT errors on ${node.url}`).toBe(0);
  }
});
afterAll(async () => {
  await cluster?.stop();
});

/** Nodes a test killed and has not started again. */
const down = new Set<ClusterNode>();

/** A connection as server/services.ts makes one from REDIS_CLUSTER_URLS. */
async function clusterClient(): Promise<SharedRedis> {
  const client = connectRedis({ clusterUrls: cluster.urls });
  closing.push(() => client.disconnect());
  await once(client, "ready");
  expect(isCluster(client)).toBe(true);
  return client;
}

type Instance = { caches: OrgCaches; coordination: Coordination; fleet: FleetCaches; client: SharedRedis };

async function instance({ applyingForMs }: { applyingForMs?: number } = {}): Promise<Instance> {
  const client = await clusterClient();
  const caches = createOrgCaches({ store: redisCacheStore(client, CACHE_PREFIXES), webhooks: true });
  const coordination = createCoordination({ client, config: { clusterUrls: cluster.urls } }, { applyingForMs });
  closing.push(() => coordination.close());
  // (A message published before an instance listens never reaches it.)
  await coordination.listening;
  return { caches, coordination, fleet: inFleet(caches, coordination), client };
}

/**
 * Groups of `family` (keys `<group>` and `<group>|…`) whose hash tag
 * (`{family|group}`, see redis-cache-store.ts) lands on each primary: a case
 * run on them touches every node.
 */
async function groupsOnEveryPrimary(family: string): Promise<string[]> {
  const primaries = await cluster.primaries();
  const found = new Map<number, string>();
  for (let n = 0; found.size < primaries.length; n++) {
    if (n > 200) throw new Error("no group found on some primary");
    const group = `org_${n}`;
    const { port } = await cluster.primaryFor(`{${family}|${group}}`);
    if (!found.has(port)) found.set(port, group);
  }
  return [...found.values()];
}

describe("the cache store on a Redis Cluster", () => {
  it("read, start, write, writeIfQuiet, delete and clear, for groups on every primary", async () => {
    const [a, b] = [
      redisCacheStore(await clusterClient(), CACHE_PREFIXES),
      redisCacheStore(await clusterClient(), CACHE_PREFIXES),
    ];
    const family = unique("family");
    const groups = await groupsOnEveryPrimary(family);
    const stored = (value: string) => ({ value, at: Date.now() });

    for (const [n, group] of groups.entries()) {
      // Nothing yet: no answer, no group generation (nor the family's, before the first start).
      const nothing = { stored: null, generation: { group: null, family: n === 0 ? null : expect.any(String) } };
      expect(await a.read(family, group)).toEqual(nothing);
      const generation = await a.start(family, group);
      expect(generation.group).not.toBeNull();
      expect(generation.family).not.toBeNull();
      // Another instance starting the same key finds the same generations.
      expect(await b.start(family, group)).toEqual(generation);
      expect(await a.write(family, group, stored(`${group} profile`), 60_000, generation)).toBe(true);
      expect((await b.read(family, group)).stored?.value).toBe(`${group} profile`);
      // A page of the group, read with another answer: kept while the family is quiet.
      const { generation: now } = await b.read(family, `${group}|1|`);
      expect(await b.writeIfQuiet(family, `${group}|1|`, stored(`${group} page`), 60_000, now.family!)).toBe(true);
      expect((await a.read(family, `${group}|1|`)).stored?.value).toBe(`${group} page`);
    }

    // A forget of one group's key: its answers hidden, and a write read before it refused.
    const [first, second, third] = groups as [string, string, string];
    const before = (await a.read(family, first)).generation;
    await b.delete(family, first);
    expect((await a.read(family, first)).stored).toBeNull();
    expect((await a.read(family, `${first}|1|`)).stored).toBeNull();
    expect(await a.write(family, first, stored("read before the forget"), 60_000, before)).toBe(false);
    expect(await a.writeIfQuiet(family, `${first}|2|`, stored("too"), 60_000, before.family!)).toBe(false);
    // Other groups' answers are still served.
    expect((await a.read(family, second)).stored?.value).toBe(`${second} profile`);

    // A clear of one group (`<group>|`), then of every group (a new epoch).
    await a.clear(family, `${second}|`);
    expect((await b.read(family, second)).stored).toBeNull();
    expect((await b.read(family, third)).stored?.value).toBe(`${third} profile`);
    await a.clear(family, "");
    for (const group of groups) expect((await b.read(family, group)).stored).toBeNull();
    // After the clear, a read's write is kept again.
    const after = await b.start(family, third);
    expect(await b.write(family, third, stored("after the clear"), 60_000, after)).toBe(true);
    expect((await a.read(family, third)).stored?.value).toBe("after the clear");
  });

  it("a forget on one instance refuses another's write read before it, and only in its own group", async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const [mine, other] = [unique("org"), unique("org")];
    for (const org of [mine, other]) await a.caches.memberPages.get(`${org}|1|`, async () => page("first"));

    const otherRead = await readUnderWay(a.caches.memberPages, `${other}|2|`);
    const mineRead = await readUnderWay(a.caches.memberPages, `${mine}|2|`);
    b.caches.memberPages.clear(`${mine}|`);
    await b.caches.memberPages.forgotten();
    await otherRead.answer(page("other, read while mine changed"));
    await mineRead.answer(page("mine, read before it changed"));
    // a's writes (not awaited by get) have landed once a's connection answers after them.
    await until(
      async () => (await redisCacheStore(c.client, CACHE_PREFIXES).read("memberPages", `${other}|2|`)).stored !== null,
    );

    expect((await c.caches.memberPages.get(`${other}|2|`, notAsked)).total).toBe(
      "other, read while mine changed".length,
    );
    expect((await c.caches.memberPages.get(`${mine}|2|`, async () => page("read after"))).total).toBe(
      "read after".length,
    );
  });

  it("the instance that forgets a key does not keep the old answer from a read made while the store moves on", async () => {
    const a = await instance();
    const key = unique("org");
    expect((await a.caches.profiles.get(key, async () => profile(key, "Old name"))).name).toBe("Old name");
    await until(async () => (await redisCacheStore(a.client, CACHE_PREFIXES).read("profiles", key)).stored !== null);

    // A page asks right after the forget began (a webhook applied here, a page served meanwhile):
    // on a cluster the store's moves are several round trips, and the read may fall between them.
    a.caches.profiles.forget(key);
    const during = a.caches.profiles.get(key, async () => profile(key, "New name"));
    await a.caches.profiles.forgotten();
    await during;
    // Once forgotten, this instance answers with the new name, not a copy of the old it kept meanwhile.
    expect((await a.caches.profiles.get(key, async () => profile(key, "New name"))).name).toBe("New name");
  });

  it("clearing a whole family hides every group on every primary, with no SCAN on any node", async () => {
    const name = unique("family");
    const groups = await groupsOnEveryPrimary(name);
    const cache = async () =>
      createCache<string>({
        name,
        localTtlMs: 1,
        sharedTtlMs: 60_000,
        store: redisCacheStore(await clusterClient(), CACHE_PREFIXES),
      });
    const [a, b] = [await cache(), await cache()];
    for (const group of groups) expect(await a.get(group, async () => `${group} kept`)).toBe(`${group} kept`);
    const reader = redisCacheStore(await clusterClient(), CACHE_PREFIXES);
    // (a's writes are not awaited by get.)
    await until(async () => {
      for (const group of groups) if ((await reader.read(name, group)).stored === null) return false;
      return true;
    });
    for (const group of groups) expect(await b.get(group, notAsked)).toBe(`${group} kept`);

    // The test's own CROSSSLOT count, before the counts this part reads.
    for (const node of cluster.nodes) expect((await cluster.errorCounts(node)).CROSSSLOT ?? 0).toBe(0);
    await cluster.resetStats();
    b.clear("");
    await b.forgotten();
    for (const group of groups) {
      expect(await a.get(group, async () => `${group} read again`)).toBe(`${group} read again`);
    }
    const primaries = await cluster.primaries();
    const commands: Record<string, number> = {};
    for (const node of cluster.nodes) {
      const calls = await cluster.commandCalls(node);
      expect(calls.scan ?? 0, `SCANs on ${node.url}`).toBe(0);
      expect(calls.keys ?? 0, `KEYS on ${node.url}`).toBe(0);
      // What the clients sent: a replica runs its primary's writes again; the test's INFO and HELLO, and the clients' CLUSTER SLOTS, left out.
      if (!primaries.includes(node)) continue;
      for (const [command, count] of Object.entries(calls)) {
        if (!/^(info|config|cluster|hello)/.test(command)) commands[command] = (commands[command] ?? 0) + count;
      }
    }
    console.info(
      `a family clear, then three reads and writes, on the cluster's primaries: ${JSON.stringify(commands)}`,
    );
    // The clear (this format's and the previous one's) and three reads with their writes: a handful, however many keys there are.
    // (Each read's single flight, 2 of them: the lead's SET NX, the lease's GETDEL in the write's script.)
    expect(Object.values(commands).reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(30 + 3 * 2);
  });
});

describe("instances coordinating through a Redis Cluster", () => {
  /** The node whose connection is subscribed to the coordination channel for `act`'s new instance. */
  async function subscriberNodeOf<T>(act: () => Promise<T>): Promise<{ made: T; node: ClusterNode }> {
    const count = async () =>
      Promise.all(
        cluster.nodes.map(
          async (node) => (await cluster.on(node, (r) => r.pubsub("NUMSUB", "teamwork:coordination")))[1] as number,
        ),
      );
    const before = await count();
    const made = await act();
    const after = await count();
    const grew = cluster.nodes.filter((_node, i) => after[i]! > before[i]!);
    expect(grew).toHaveLength(1);
    return { made, node: grew[0]! };
  }

  it("a forget reaches an instance subscribed through another node than the one it was published on", async () => {
    const a = await instance();
    const { made: b, node: listensOn } = await subscriberNodeOf(() => instance());
    let crossed = 0;
    // The client sends PUBLISH to a node of its choosing: forgets are sent until
    // some were published on other nodes than b's.
    for (let n = 0; n < 20 && crossed < 2; n++) {
      const key = unique("org");
      let reads = 0;
      const read = async () => profile(key, `read ${++reads}`);
      expect((await a.caches.profiles.get(key, read)).name).toBe("read 1");
      await until(async () => (await redisCacheStore(a.client, CACHE_PREFIXES).read("profiles", key)).stored !== null);
      expect((await b.caches.profiles.get(key, read)).name).toBe("read 1");

      await cluster.resetStats();
      await a.fleet.forget([{ cache: "profiles", key }]);
      const publishedOn = [];
      for (const node of cluster.nodes) if ((await cluster.commandCalls(node)).publish) publishedOn.push(node);
      expect(publishedOn).toHaveLength(1);
      // b forgot its own copy (fresh for 5 s), so it asks again.
      await until(async () => (await b.caches.profiles.get(key, read)).name === "read 2");
      if (publishedOn[0] !== listensOn) crossed++;
    }
    expect(crossed).toBeGreaterThan(0);
  });

  it("a 429's hold reaches the other instances, and one that starts during it", async () => {
    const [a, b] = [await instance(), await instance()];
    const upstream = "clerk.organizations.getOrganization";
    const until3s = Date.now() + 3_000;
    a.coordination.backoff.hold(upstream, until3s);
    await until(() => b.coordination.backoff.heldUntil(upstream) === until3s);
    const late = await instance();
    await until(() => late.coordination.backoff.heldUntil(upstream) === until3s);
    expect(late.coordination.backoff.heldUntil("clerk.users.getUserList")).toBeNull();
  });

  it("a webhook's id is claimed once across instances, and kept as teamwork:2:webhook:<id> on its slot's primary", async () => {
    const [a, b] = [await instance({ applyingForMs: 300 }), await instance()];
    const id = unique("msg");
    expect(await a.coordination.claim(id)).toBe("claimed");
    expect(await b.coordination.claim(id)).toBe("applying");
    await a.coordination.release(id);
    expect(await b.coordination.claim(id)).toBe("claimed");
    await b.coordination.applied(id);
    expect(await a.coordination.claim(id)).toBe("applied");
    // Where the failover test (and tests/e2e/production-cluster.spec.ts) expects it.
    const primary = await cluster.primaryFor(redisKey(`webhook:${id}`));
    expect(await cluster.on(primary, (r) => r.get(redisKey(`webhook:${id}`)))).toBe("applied");

    const both = await Promise.all([a.coordination.claim(`${id}_2`), b.coordination.claim(`${id}_2`)]);
    expect(both.sort()).toEqual(["applying", "claimed"]);
    // Neither given back nor marked applied: free again after its short claim.
    expect(await a.coordination.claim(`${id}_3`)).toBe("claimed");
    await until(async () => (await b.coordination.claim(`${id}_3`)) === "claimed");
  });

  it("a webhook applied on one instance drops the other's copies, and is only acknowledged on another", async () => {
    const [a, b] = [await instance(), await instance()];
    const [org, user] = [unique("org"), unique("user")];
    const members = (total: number) => async () => ({ members: [], total });
    expect((await b.caches.latestMembers.get(org, members(1))).total).toBe(1);
    const deliverToA = await webhookEndpoint(
      { caches: a.caches, coordination: a.coordination, secret: SECRET, closing },
      async () => [org],
    );
    const deliverToB = await webhookEndpoint(
      { caches: b.caches, coordination: b.coordination, secret: SECRET, closing },
      async () => [org],
    );
    const renamed = { type: "user.updated", data: { id: user, object: "user", first_name: "Augusta" } };
    const webhook = signedWebhook(SECRET, renamed);
    expect(await deliverToA(webhook)).toEqual({ status: 200, message: "Applied." });
    await until(async () => (await b.caches.latestMembers.get(org, members(2))).total === 2);
    const again = signedWebhook(SECRET, renamed, { id: webhook.headers["svix-id"] });
    expect(await deliverToB(again)).toEqual({ status: 200, message: "Already applied." });
  });
});

describe("versioned copies on a Redis Cluster", () => {
  // The model of tests/unit/versioned-copies.test.ts, over the cluster: the store's compare-and-set, its
  // generations and the membership index's tombstones, each in its own slot.
  it("random histories, deliveries and reads on two instances keep every invariant (200 runs, seeded)", async () => {
    const client = await clusterClient();
    const fleet = async () => ({
      store: redisCacheStore(client, CACHE_PREFIXES),
      membershipIndex: redisMembershipIndex(client, redisKey),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 25 }), (steps) => runModel(steps, fleet)),
      { numRuns: 200, seed: 67 },
    );
  }, 300_000);
});

describe("Clerk's call budget on a Redis Cluster", () => {
  it("deferrable calls of two instances share one 60% of the fleet's budget; needed calls have the rest", async () => {
    const budgets = [await clusterClient(), await clusterClient()].map((client) =>
      createCallBudget({
        limit: 10,
        allowances: { person: 100, address: 100, anonymous: 100, webhooks: 100 },
        shared: redisCallWindow(client, { fleetKey: CLERK_BUDGET_KEY, limit: 10, windowMs: 11_000 }),
      }),
    );
    const read = "clerk.organizations.getOrganization";
    const deferred = [];
    for (let n = 0; n < 10; n++)
      deferred.push(await budgets[n % 2]!.take(read, personPays(unique("user")), "deferrable"));
    expect(deferred.filter((o) => o === null)).toHaveLength(6);
    expect(deferred.slice(6).every((o) => o?.by === "deferrable")).toBe(true);
    const needed = [];
    for (let n = 0; n < 5; n++) needed.push(await budgets[n % 2]!.take(read, personPays(unique("user")), "needed"));
    expect(needed.map((o) => o?.by ?? "taken")).toEqual(["taken", "taken", "taken", "taken", "fleet"]);
  });
});

describe("rate limits on a Redis Cluster", () => {
  it("two instances count one limit: the 11th organization in an hour is refused on either", async () => {
    const [a, b] = [
      createRateLimiter({ redis: await clusterClient() }),
      createRateLimiter({ redis: await clusterClient() }),
    ];
    const who = unique("user");
    const answers = [];
    for (let n = 0; n < 10; n++) answers.push(await (n % 2 ? a : b).consume("create-organization", who));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    expect((await a.consume("create-organization", who)).allowed).toBe(false);
    expect((await b.consume("create-organization", who)).allowed).toBe(false);
    // Another person's count is their own.
    expect((await a.consume("create-organization", unique("user"))).allowed).toBe(true);
  });
});

describe("a webhook when its claim's primary fails", () => {
  it("is refused with a 503 until a replica is promoted, then Svix's retry applies it", async () => {
    const [a, b] = [await instance(), await instance()];
    const [org, user] = [unique("org"), unique("user")];
    const members = (total: number) => async () => ({ members: [], total });
    await a.caches.latestMembers.get(org, members(1));
    await until(
      async () => (await redisCacheStore(b.client, CACHE_PREFIXES).read("latestMembers", org)).stored !== null,
    );
    const deliver = await webhookEndpoint(
      { caches: a.caches, coordination: a.coordination, secret: SECRET, closing },
      async () => [org],
    );
    const renamed = { type: "user.updated", data: { id: user, object: "user", first_name: "Ada" } };
    const id = unique("msg");
    const delivery = () => deliver(signedWebhook(SECRET, renamed, { id }));

    const primary = await cluster.primaryFor(redisKey(`webhook:${id}`));
    const killed = Date.now();
    await cluster.kill(primary);
    down.add(primary);
    try {
      // Svix's first delivery, before the replica is promoted.
      expect(await delivery()).toEqual({ status: 503, message: "Redis or Clerk is unavailable; try again later." });
      const { tookMs } = await cluster.failover(primary, killed);
      console.info(`failover: a replica took over ${tookMs} ms after its primary was killed`);
      // Svix's retries, until one is applied (the client learns the new layout meanwhile).
      let last = { status: 0, message: "" };
      await until(async () => (last = await delivery()).status !== 503, 10_000);
      expect(last).toEqual({ status: 200, message: "Applied." });
      console.info(`failover: the webhook was applied ${Date.now() - killed} ms after the primary was killed`);
      await until(async () => (await b.caches.latestMembers.get(org, members(2))).total === 2);
      expect(await delivery()).toEqual({ status: 200, message: "Already applied." });
    } finally {
      await cluster.restart(primary);
      down.delete(primary);
    }
  }, 60_000);
});
