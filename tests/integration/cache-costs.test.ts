import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrgCaches, type OrgCaches } from "../../app/lib/cache/org-caches.server";
import { createCache } from "../../app/lib/cache/shared-cache.server";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import { CACHE_PREFIXES, redisKey } from "../../server/redis-keys";
import { connectRedis } from "../../server/redis";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { backendApi, newTeam } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";
import { notAsked, page, readUnderWay, unique } from "../support/shared-state";

// What clearing the shared caches costs Redis, through a real redis-server: an
// organization's copies are dropped by moving their generations, never by
// walking the keyspace, and one group's forget leaves every other group alone.
let redis: RedisServer;
let admin: Redis;
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;
const clients: { disconnect(): void }[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url);
  server = await startServer({ LOG_LEVEL: "silent", REDIS_URL: redis.url });
  bapi = backendApi(server.origin, server.dataDir);
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  admin?.disconnect();
  // Redis is stopped even when the server never started or stops badly.
  try {
    if (server) expect(await server.stop()).toBe(0);
  } finally {
    await redis?.stop();
  }
});

/** Calls per command since the last CONFIG RESETSTAT, from INFO commandstats (the test's own INFO left out). */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await admin.info("commandstats");
  const calls: Record<string, number> = {};
  for (const [, name, count] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (!/^(info|config)/.test(name!)) calls[name!] = Number(count);
  }
  return calls;
}
const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

/** The commands Redis ran for what `act` started, once they have all landed (a page's forgets do not hold its answer). */
async function commandsFor(act: () => Promise<unknown>): Promise<Record<string, number>> {
  await admin.config("RESETSTAT");
  await act();
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const calls = await commandCalls();
    if (total(calls) === last) return calls;
    last = total(calls);
  }
}

/** 100,000 keys beside the app's: other organizations' kept pages, and what else shares the Redis. */
async function fillKeyspace() {
  for (let batch = 0; batch < 10; batch++) {
    const pipeline = admin.pipeline();
    for (let i = 0; i < 10_000; i++) {
      const n = batch * 10_000 + i;
      pipeline.set(
        n % 2 ? redisKey(`cache:{memberPages|org_seed${n}}:org_seed${n}|1|`) : `other:${n}`,
        "x",
        "PX",
        600_000,
      );
    }
    await pipeline.exec();
  }
}

/** An instance's caches over Redis, as server/services.ts makes them (with Clerk's webhooks: answers kept minutes). */
async function instance(): Promise<OrgCaches> {
  const client = connectRedis({ url: redis.url });
  clients.push(client);
  await once(client, "ready");
  return createOrgCaches({ store: redisCacheStore(client, CACHE_PREFIXES), webhooks: true });
}

describe("an organization write, with 100,000 other keys in Redis", () => {
  it("walks no keyspace (0 SCANs) and runs a handful of commands, whatever the keyspace's size", async () => {
    await fillKeyspace();
    const { org, admin: person } = await newTeam(bapi, { members: 1 });
    const cookie = await emulatorCookie(server.origin, person.email, org.id);
    const view = (path: string) => fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" } });
    expect((await view(`/orgs/${org.slug}/members`)).status).toBe(200);
    expect((await view(`/orgs/${org.slug}`)).status).toBe(200);
    const keys = await admin.dbsize();

    // The browser's word that Clerk's components changed the organization: six caches forget it.
    const refreshed = await commandsFor(async () =>
      expect((await postForm(server, "/resources/organizations", { organizationId: org.id }, cookie)).status).toBe(200),
    );
    expect(refreshed.scan ?? 0).toBe(0);
    // Per cache and per key format (this release's, and the one before's while both may run): a script moving
    // its family's generation (3 calls inside) and a SET of its group's; the rate limit's 4.
    expect(total(refreshed)).toBeLessThanOrEqual(6 * 2 * 4 + 4 + 4);
    // An invitation (its directory, pending list, newest members and profile forgotten).
    const invited = await commandsFor(async () =>
      expect(
        (
          await postForm(
            server,
            `/orgs/${org.slug}/members`,
            { emailAddress: `${unique("invitee")}@example.com`, role: "org:member" },
            cookie,
          )
        ).status,
      ).toBe(200),
    );
    expect(invited.scan ?? 0).toBe(0);
    // (The invitation itself, the page it renders and its reads of what was forgotten, beside the forgets,
    // four of them in both key formats; each read again costs 2 more for single flight: the lead's SET NX,
    // and the lease's GETDEL in the write's script.)
    expect(total(invited)).toBeLessThanOrEqual(80);
    // Nothing of the other organizations' was deleted.
    expect(await admin.dbsize()).toBeGreaterThanOrEqual(keys);
    console.info(`commands: organization refresh ${JSON.stringify(refreshed)}; invitation ${JSON.stringify(invited)}`);
  });

  it("clearing a whole cache (a webhook naming no key) is one or two commands, no SCAN", async () => {
    const caches = await instance();
    await caches.memberPages.get(`${unique("org")}|1|`, async () => page("kept"));
    const cleared = await commandsFor(async () => {
      caches.memberPages.clear("");
      await caches.memberPages.forgotten();
    });
    expect(cleared.scan ?? 0).toBe(0);
    expect(total(cleared)).toBeLessThanOrEqual(2);
  });
});

describe("one group's forget, on any instance", () => {
  it("does not refuse another organization's read under way; its own organization's is refused", async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const [mine, other] = [unique("org"), unique("org")];
    // Each organization's pages read once already (their generations in Redis).
    for (const org of [mine, other]) await a.memberPages.get(`${org}|1|`, async () => page("first"));

    const otherRead = await readUnderWay(a.memberPages, `${other}|2|`);
    const mineRead = await readUnderWay(a.memberPages, `${mine}|2|`);
    // Another instance is told `mine` changed (an invitation there, say).
    b.memberPages.clear(`${mine}|`);
    await b.memberPages.forgotten();
    await otherRead.answer(page("other, read while mine changed"));
    await mineRead.answer(page("mine, read before it changed"));
    await new Promise((r) => setTimeout(r, 100));

    // A third instance finds the other organization's page in Redis, and not the one read before the change.
    expect((await c.memberPages.get(`${other}|2|`, notAsked)).total).toBe("other, read while mine changed".length);
    expect((await c.memberPages.get(`${mine}|2|`, async () => page("read after"))).total).toBe("read after".length);
  });

  it("does not refuse another person's memberships read under way; their own is refused", async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const [leaving, staying] = [unique("user"), unique("user")];
    const orgs = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ orgId: `org_${i}`, role: "org:member" as const }));
    // Someone's memberships read once already (the cache has been used since Redis started).
    await a.memberships.get(unique("user"), async () => orgs(1));

    const stayingRead = await readUnderWay(a.memberships, staying);
    const leavingRead = await readUnderWay(a.memberships, leaving);
    b.memberships.forget(leaving);
    await b.memberships.forgotten();
    await stayingRead.answer(orgs(2));
    await leavingRead.answer(orgs(2));
    await new Promise((r) => setTimeout(r, 100));

    expect(await c.memberships.get(staying, notAsked)).toHaveLength(2);
    expect(await c.memberships.get(leaving, async () => orgs(0))).toHaveLength(0);
  });
});

describe("a read from Clerk through the Redis store", () => {
  it("costs six commands: the miss's MGET, the lead's SET NX, and the write's script (EVAL, GETDEL, GETEX, SET)", async () => {
    // (With the budget's four for the call itself, call-window-costs.test.ts: ten, what a miss cost before single flight.)
    const client = connectRedis({ url: redis.url });
    clients.push(client);
    await once(client, "ready");
    const cache = createCache<string>({
      name: unique("family"),
      localTtlMs: 1,
      sharedTtlMs: 10,
      store: redisCacheStore(client, CACHE_PREFIXES),
    });
    // The group's and the family's generations exist once the group has been read from Clerk once.
    await cache.get("org_1", async () => "first");
    await new Promise((r) => setTimeout(r, 50));
    const calls = await commandsFor(() => cache.get("org_1", async () => "again"));
    expect(calls).toEqual({ mget: 1, set: 2, eval: 1, getdel: 1, getex: 1 });
  });
});

describe("the Redis store's generations", () => {
  /** Two instances' caches of a family of their own (this instance's own copies kept 1 ms: reads go to Redis). */
  async function family() {
    const name = unique("family");
    const cache = async () => {
      const client = connectRedis({ url: redis.url });
      clients.push(client);
      await once(client, "ready");
      return createCache<string>({
        name,
        localTtlMs: 1,
        sharedTtlMs: 60_000,
        store: redisCacheStore(client, CACHE_PREFIXES),
      });
    };
    const [a, b] = [await cache(), await cache()];
    const later = () => new Promise((r) => setTimeout(r, 20));
    return { name, a, b, later };
  }

  it("generations lost (Redis restarted, or evicted them): nothing kept before is served, and the first read after is kept", async () => {
    const { name, a, b, later } = await family();
    expect(await a.get("org_1", async () => "before")).toBe("before");
    await later();
    expect(await b.get("org_1", notAsked)).toBe("before");
    // A group's generation and its answers share a hash tag (one slot in a Redis Cluster).
    const tagged = await admin.keys(`*{${name}|org_1}*`);
    expect(tagged.sort()).toEqual([redisKey(`cache-gen:{${name}|org_1}`), redisKey(`cache:{${name}|org_1}:org_1`)]);

    await admin.del(...(await admin.keys(redisKey(`cache-gen:*${name}*`))));
    await later();
    expect(await a.get("org_1", async () => "after")).toBe("after");
    await later();
    expect(await b.get("org_1", notAsked)).toBe("after");
  });
});

describe("what a member search keeps in Redis", () => {
  it("a search's answer for at most 30 s; the directory's own pages for their whole life", async () => {
    const { org, admin: person } = await newTeam(bapi, { members: 2 });
    const cookie = await emulatorCookie(server.origin, person.email, org.id);
    const view = (path: string) => fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" } });
    const query = unique("nobody");
    expect((await view(`/orgs/${org.slug}/members?q=${query}`)).status).toBe(200);
    expect((await view(`/orgs/${org.slug}/members`)).status).toBe(200);
    expect((await view(`/orgs/${org.slug}/members?page=40`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    /** The life left (ms) of each copy in Redis whose key ends with `end`. */
    const lives = async (end: string) => {
      const keys = await admin.keys(redisKey(`cache:*${end}`));
      return Promise.all(keys.map((key) => admin.pttl(key)));
    };
    const [search, pastTheEnd, directory] = [
      await lives(`|${query}`),
      await lives(`${org.id}|40|`),
      await lives(`${org.id}|1|`),
    ];
    expect(search.length).toBeLessThanOrEqual(1);
    for (const ms of [...search, ...pastTheEnd]) expect(ms).toBeLessThanOrEqual(30_000);
    expect(directory).toHaveLength(1);
    expect(directory[0]).toBeGreaterThan(60_000);
  });
});
