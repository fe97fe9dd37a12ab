import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowancesFor } from "~/lib/upstream/call-budget.server";
import { backendApi, emulatorCalls, newTeam } from "../support/emulator-api";
import { startRedisServer } from "../support/process-group";
import { startRedisCluster } from "../support/redis-cluster";
import { keysModeOn, startServer, type RunningServer } from "../support/server";
import { browserCookies, emulatorCookie, emulatorSession, emulatorToken, startHandshake } from "../support/session";

// Fair share of Clerk's budget, over real HTTP: two instances in keys mode
// share one Redis (and then a Redis Cluster) and a budget of 200 calls per
// 10 s; a local-mode server stands in for Clerk and counts what reaches it.
// One person, or a crowd of made-up client addresses, spend as fast as they
// can; everyone else's pages must stay 200 on both instances, and a real
// handshake return must still complete.
const BUDGET = 200;
const ALLOWANCES = allowancesFor(BUDGET);
/** How long each attack lasts: long enough to spend today's fleet budget many times over. */
const ATTACK_MS = 8_000;
const ATTACKERS = 16;

const SESSION_CHECK = "bapi GET /v1/sessions/:id";
const HANDSHAKE_PAYLOAD = "bapi GET /v1/clients/handshake_payload";
const now = () => Math.floor(Date.now() / 1000);

type Fleet = { clerk: RunningServer; instances: RunningServer[]; bapi: ReturnType<typeof backendApi> };

async function startFleet(redis: Record<string, string>): Promise<Fleet> {
  const clerk = await startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_WEBHOOKS: "off" });
  try {
    const { env, jwtKey } = keysModeOn(clerk, "fair-share-session-secret-0123456789abcdef");
    const instance = {
      ...env,
      ...redis,
      CLERK_JWT_KEY: jwtKey,
      CLERK_API_CALLS_PER_10S: String(BUDGET),
      LOG_LEVEL: "warning",
    };
    const instances = await Promise.all([startServer(instance), startServer(instance)]);
    return { clerk, instances, bapi: backendApi(clerk.origin, clerk.dataDir) };
  } catch (error) {
    await clerk.stop();
    throw error;
  }
}

async function stopFleet(fleet: Fleet | undefined) {
  for (const server of [...(fleet?.instances ?? []), fleet?.clerk]) if (server) await server.stop();
}

/** Calls Clerk's Backend API got at `endpoint` while `work` ran. */
async function callsDuring(fleet: Fleet, endpoint: string, work: () => Promise<void>): Promise<number> {
  const before = (await emulatorCalls(fleet.clerk.origin))[endpoint] ?? 0;
  await work();
  return ((await emulatorCalls(fleet.clerk.origin))[endpoint] ?? 0) - before;
}

/** Five other people, each with a new organization whose home they will view. */
function otherPeople(fleet: Fleet) {
  return Promise.all(
    Array.from({ length: 5 }, async () => {
      const team = await newTeam(fleet.bapi);
      return {
        home: `/orgs/${team.org.slug}`,
        cookie: await emulatorCookie(fleet.clerk.origin, team.admin.email, team.org.id),
      };
    }),
  );
}

/**
 * The other people viewing their organization's home on both instances
 * every 300 ms until `until` resolves (and at least three times): the
 * statuses they got. Their first views are cold (a few calls each, from
 * their own allowances).
 */
async function othersBrowse(
  fleet: Fleet,
  people: Awaited<ReturnType<typeof otherPeople>>,
  until: Promise<unknown>,
): Promise<number[]> {
  const statuses: number[] = [];
  let done = false;
  void until.finally(() => (done = true));
  await Promise.all(
    people.map(async (person) => {
      for (let round = 0; round < 3 || !done; round++) {
        for (const server of fleet.instances) {
          const res = await fetch(server.origin + person.home, {
            headers: { Cookie: person.cookie, Accept: "text/html" },
            redirect: "manual",
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    }),
  );
  return statuses;
}

/** `ATTACKERS` connections sending `request` in turn to both instances for ATTACK_MS: the statuses. */
async function flood(fleet: Fleet, request: (server: RunningServer, n: number) => Promise<Response>) {
  const statuses: number[] = [];
  const ends = Date.now() + ATTACK_MS;
  let n = 0;
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      while (Date.now() < ends) {
        const i = n++;
        const res = await request(fleet.instances[i % fleet.instances.length]!, i);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    }),
  );
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe.each([
  ["one Redis", "single"],
  ["a Redis Cluster", "cluster"],
] as const)("fair share on %s", (_name, kind) => {
  let fleet: Fleet | undefined;
  let stopRedis: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (kind === "single") {
      const redis = await startRedisServer();
      stopRedis = () => redis.stop();
      fleet = await startFleet({ REDIS_URL: redis.url });
    } else {
      const cluster = await startRedisCluster();
      stopRedis = () => cluster.stop();
      fleet = await startFleet({ REDIS_CLUSTER_URLS: cluster.urls.join(",") });
    }
  }, 120_000);

  afterAll(async () => {
    await stopFleet(fleet);
    await stopRedis();
  });

  it("one person re-sending an expired token on forms at 16 connections spends only their own allowance; everyone else's pages stay 200", async () => {
    const f = fleet!;
    const team = await newTeam(f.bapi);
    const session = await emulatorSession(f.clerk.origin, team.admin.email, team.org.id);
    // Expired a minute ago: each POST asks Clerk whether its session is still active.
    const exp = now() - 60;
    const cookie = browserCookies(session, emulatorToken(f.clerk.dataDir, session, { iat: exp - 60, exp }), exp - 120);
    const people = await otherPeople(f);
    let attack: Promise<number[]> = Promise.resolve([]);
    let others: Promise<number[]> = Promise.resolve([]);
    const checks = await callsDuring(f, SESSION_CHECK, async () => {
      attack = flood(f, (server) =>
        fetch(`${server.origin}/resources/theme`, {
          method: "POST",
          headers: {
            Cookie: cookie,
            "Content-Type": "application/x-www-form-urlencoded",
            Origin: server.origin,
            Accept: "text/html",
          },
          body: "theme=dark",
          redirect: "manual",
        }),
      );
      others = othersBrowse(f, people, attack);
      await Promise.all([attack, others]);
    });
    const [attackStatuses, otherStatuses] = [await attack, await others];
    // The person's own: at most their allowance of session checks, then their own 429.
    expect(checks).toBeGreaterThan(0);
    expect(checks).toBeLessThanOrEqual(ALLOWANCES.person);
    expect(count(attackStatuses, 429)).toBeGreaterThan(attackStatuses.length / 2);
    expect(attackStatuses.filter((s) => s >= 500)).toEqual([]);
    // Nobody else noticed, on either instance.
    expect(otherStatuses.length).toBeGreaterThanOrEqual(30);
    expect(otherStatuses.filter((s) => s !== 200)).toEqual([]);
  }, 60_000);

  it.runIf(kind === "single")(
    "one person on any path at 16 connections (?left=, searches, data requests) causes at most their allowance of Clerk calls; everyone else's pages stay 200",
    async () => {
      const f = fleet!;
      const team = await newTeam(f.bapi);
      // A second organization of theirs, to say they left.
      const other = (await f.bapi("POST", "/v1/organizations", { name: "Left behind", created_by: team.admin.id }))
        .body as { id: string };
      const home = `/orgs/${team.org.slug}`;
      const paths = [
        `/resources/organizations?left=${other.id}`,
        `/orgs?left=${other.id}`,
        `${home}/members?q=`,
        `${home}.data`,
      ];
      for (const path of paths) {
        // Session tokens live 60 s: each path's people sign in afresh.
        const cookie = await emulatorCookie(f.clerk.origin, team.admin.email, team.org.id);
        const people = await otherPeople(f);
        const get = (server: RunningServer, n: number) =>
          fetch(`${server.origin}${path}${path.endsWith("q=") ? `zz${n}` : ""}`, {
            headers: { Cookie: cookie, Accept: path.includes(".data") ? "*/*" : "text/html" },
            redirect: "manual",
          });
        // Alone, so that every call Clerk gets is theirs.
        const before = await emulatorCalls(f.clerk.origin);
        const alone = await flood(f, get);
        const after = await emulatorCalls(f.clerk.origin);
        const calls = Object.entries(after)
          .filter(([endpoint]) => endpoint.startsWith("bapi "))
          .reduce((sum, [endpoint, n]) => sum + n - (before[endpoint] ?? 0), 0);
        expect(calls, path).toBeLessThanOrEqual(ALLOWANCES.person);
        expect(
          alone.filter((s) => s >= 500),
          path,
        ).toEqual([]);
        // And with everyone else browsing: they notice nothing.
        const attack = flood(f, get);
        const others = await othersBrowse(f, people, attack);
        await attack;
        expect(
          others.filter((s) => s !== 200),
          path,
        ).toEqual([]);
      }
    },
    120_000,
  );

  it("made-up handshake nonces from 1,000 addresses spend only the anonymous pool: a real handshake return completes on both instances, and others' pages stay 200", async () => {
    const f = fleet!;
    const people = await otherPeople(f);
    let others: Promise<number[]> = Promise.resolve([]);
    const attackStatuses: number[] = [];
    const attackStarted = Date.now();
    const reads = await callsDuring(f, HANDSHAKE_PAYLOAD, async () => {
      const attack = (async () => {
        const queue = Array.from({ length: 1_000 }, (_, n) => n);
        await Promise.all(
          Array.from({ length: ATTACKERS }, async () => {
            for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
              const server = f.instances[n % 2]!;
              // Each bound to the attacker's own browser (an unbound nonce is never read at all).
              const headers = { "X-Forwarded-For": `198.18.${(n >> 8) & 255}.${n & 255}` };
              const bound = await startHandshake(server.origin, "/", { headers });
              const res = await fetch(`${server.origin}${bound.returnPath(`hsn_madeup${n}abcdefgh`)}`, {
                headers: { ...headers, Accept: "text/html", Cookie: bound.stateCookie },
                redirect: "manual",
              });
              await res.arrayBuffer();
              attackStatuses.push(res.status);
            }
          }),
        );
      })();
      others = othersBrowse(f, people, attack);
      await Promise.all([attack, others]);
    });
    // The pool's worth of reads a minute, then 429s: never more, whatever the number of addresses. (Each
    // return is two requests now, its handshake bound first: on a loaded machine the flood can outlast
    // the pool's minute, and each minute it spans has a pool's worth.)
    const minutes = Math.ceil((Date.now() - attackStarted) / 60_000);
    expect(reads).toBeLessThanOrEqual(ALLOWANCES.anonymous * minutes);
    expect(count(attackStatuses, 429)).toBeGreaterThanOrEqual(1_000 - ALLOWANCES.anonymous * minutes);
    expect(attackStatuses.filter((s) => s >= 500)).toEqual([]);
    expect((await others).filter((s) => s !== 200)).toEqual([]);

    // A person back from Clerk's handshake, on each instance: the browser still carries its expired
    // token (the reason it went through the handshake), so the read is the person's own call.
    for (const server of f.instances) {
      const team = await newTeam(f.bapi);
      const session = await emulatorSession(f.clerk.origin, team.admin.email);
      const exp = now() - 30;
      const expired = emulatorToken(f.clerk.dataDir, session, { iat: exp - 60, exp });
      const cookie = browserCookies(session, expired, exp - 120);
      const headers = { "X-Forwarded-For": "198.19.0.1" };
      const started = await startHandshake(server.origin, "/orgs", { cookie, headers });
      const handshake = await fetch(
        `${f.clerk.origin}/__clerk/v1/client/handshake?redirect_url=${encodeURIComponent(`${f.clerk.origin}/orgs`)}&format=nonce`,
        { headers: { Cookie: `__client=${session.clientId}` }, redirect: "manual" },
      );
      const nonce = new URL(handshake.headers.get("location")!).searchParams.get("__clerk_handshake_nonce")!;
      const back = await fetch(`${server.origin}${started.returnPath(nonce)}`, {
        headers: { ...headers, Accept: "text/html", Cookie: `${cookie}; ${started.stateCookie}` },
        redirect: "manual",
      });
      expect([back.status, back.headers.get("location")]).toEqual([307, "/orgs"]);
      expect(back.headers.getSetCookie().some((c) => /^__session=ey/.test(c))).toBe(true);
    }
  }, 90_000);
});
