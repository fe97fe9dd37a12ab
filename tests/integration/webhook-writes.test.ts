import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, emulatorCalls, newPerson, newTeam, webhooksDelivered } from "../support/emulator-api";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";
import { keysModeOn, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";
import { newWebhookSecret } from "../support/webhooks";

// Clerk's webhooks over real HTTP, as in production: a local-mode server
// stands in for Clerk (counting every Backend API call) and sends its
// Svix-signed webhooks through a load balancer (a relay taking turns) to
// two instances in keys mode sharing one Redis. What a webhook's payload
// carries is written, not forgotten; what it does not, only where it
// reaches: the "Fair share" (one person creating and deleting an
// organization of their own made every instance forget everyone's
// memberships).
const SECRET = newWebhookSecret();

type Fleet = {
  clerk: RunningServer;
  a: RunningServer;
  b: RunningServer;
  bapi: ReturnType<typeof backendApi>;
  stop(): Promise<void>;
};

/** A relay in front of the instances, as Svix reaches them through a load balancer: each delivery to the next. */
async function loadBalancer(targets: () => RunningServer[]): Promise<{ url: string; server: Server }> {
  let turn = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const target = targets()[turn++ % 2]!;
      const headers = Object.fromEntries(
        ["content-type", "svix-id", "svix-timestamp", "svix-signature"].map((name) => [
          name,
          String(req.headers[name]),
        ]),
      );
      fetch(`${target.origin}${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) })
        .then(async (answer) => {
          res.writeHead(answer.status, { "Content-Type": "application/json" });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/clerk`, server };
}

async function startFleet(redis: Record<string, string>): Promise<Fleet> {
  const started: { stop(): Promise<unknown> }[] = [];
  try {
    let instances: RunningServer[] = [];
    const relay = await loadBalancer(() => instances);
    started.push({ stop: () => new Promise((done) => (relay.server.closeAllConnections(), relay.server.close(done))) });
    const clerk = await startServer({
      LOG_LEVEL: "silent",
      CLERK_EMULATOR_WEBHOOK_URL: relay.url,
      CLERK_EMULATOR_WEBHOOK_SECRET: SECRET,
    });
    started.push(clerk);
    const { env, jwtKey } = keysModeOn(clerk, "webhook-writes-session-secret-0123456789");
    const instance = {
      ...env,
      ...redis,
      CLERK_JWT_KEY: jwtKey,
      CLERK_WEBHOOK_SIGNING_SECRET: SECRET,
      LOG_LEVEL: "silent",
    };
    const [a, b] = await Promise.all([startServer(instance), startServer(instance)]);
    started.push(a!, b!);
    instances = [a!, b!];
    return {
      clerk,
      a: a!,
      b: b!,
      bapi: backendApi(clerk.origin, clerk.dataDir),
      stop: async () => void (await Promise.all(started.map((s) => s.stop()))),
    };
  } catch (error) {
    await Promise.all(started.map((s) => s.stop()));
    throw error;
  }
}

/** Backend API calls Clerk (the stand-in) has answered, every endpoint. */
const clerkCalls = async (fleet: Fleet) =>
  Object.entries(await emulatorCalls(fleet.clerk.origin)).reduce((n, [k, c]) => (k.startsWith("bapi ") ? n + c : n), 0);

/** What each endpoint was called since `before` (for a failure's message). */
async function callsSince(fleet: Fleet, before: Record<string, number>) {
  const now = await emulatorCalls(fleet.clerk.origin);
  return Object.fromEntries(
    Object.entries(now)
      .filter(([k, n]) => n !== (before[k] ?? 0))
      .map(([k, n]) => [k, n - (before[k] ?? 0)]),
  );
}

const view = async (server: RunningServer, path: string, cookie: string) => {
  const res = await fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" } });
  expect(res.status, `${path} on ${server.origin}`).toBe(200);
  return res.text();
};

/** Clerk calls the fleet made for `act` (the endpoints in `detail`, for a failure's message). */
async function callsFor(fleet: Fleet, act: () => Promise<unknown>) {
  await webhooksDelivered(fleet.clerk.origin);
  const [before, calls] = [await emulatorCalls(fleet.clerk.origin), await clerkCalls(fleet)];
  await act();
  return { count: (await clerkCalls(fleet)) - calls, detail: JSON.stringify(await callsSince(fleet, before)) };
}

const expectNoCalls = ({ count, detail }: { count: number; detail: string }) => expect(count, detail).toBe(0);

/** Clerk's change made, and its webhooks accepted. */
async function inClerk(fleet: Fleet, change: Promise<{ status: number }>) {
  expect((await change).status).toBe(200);
  await webhooksDelivered(fleet.clerk.origin);
}

/**
 * The page on the instance until `shows(html)`: the other instances hear of a change on Redis's channel a
 * moment after the webhook's answer. At most 2 s, then the last page.
 */
async function viewUntil(server: RunningServer, path: string, cookie: string, shows: (html: string) => boolean) {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const html = await view(server, path, cookie);
    if (shows(html) || Date.now() > deadline) return html;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A throwaway organization made and deleted in Clerk by someone else, as anyone can from Clerk's components. */
async function throwawayOrganization(fleet: Fleet) {
  const someone = await newPerson(fleet.bapi, "someone");
  const org = await fleet.bapi("POST", "/v1/organizations", { name: "Throwaway", created_by: someone.id });
  expect(org.status).toBe(200);
  await webhooksDelivered(fleet.clerk.origin);
  return {
    creator: await emulatorCookie(fleet.clerk.origin, someone.email),
    name: org.body.name as string,
    delete: () => inClerk(fleet, fleet.bapi("DELETE", `/v1/organizations/${org.body.id as string}`)),
  };
}

/** 20 people of one organization, each with a cookie, and a view of everyone's /orgs on both instances. */
async function twentyPeople(fleet: Fleet) {
  const team = await newTeam(fleet.bapi, { members: 19 });
  const cookies = await Promise.all(
    [team.admin, ...team.members].map((p) => emulatorCookie(fleet.clerk.origin, p.email, team.org.id)),
  );
  const everyonesOrgs = async () => {
    for (const cookie of cookies) for (const server of [fleet.a, fleet.b]) await view(server, "/orgs", cookie);
  };
  return { team, everyonesOrgs };
}

describe.each([
  ["one redis-server", false],
  ["a Redis Cluster", true],
] as const)("Clerk's webhooks on two instances sharing %s", (_, onCluster) => {
  let redis: RedisServer | RedisCluster | null = null;
  let fleet: Fleet | null = null;
  const theFleet = () => fleet!;

  beforeAll(async () => {
    redis = onCluster ? await startRedisCluster() : await startRedisServer();
    const env: Record<string, string> =
      "urls" in redis ? { REDIS_CLUSTER_URLS: redis.urls.join(",") } : { REDIS_URL: redis.url };
    fleet = await startFleet(env);
  }, 120_000);

  afterAll(async () => {
    try {
      await fleet?.stop();
    } finally {
      await redis?.stop();
    }
  });

  it("a throwaway organization created and deleted: 20 other people's warm /orgs still cost Clerk nothing", async () => {
    const { everyonesOrgs } = await twentyPeople(theFleet());
    await everyonesOrgs();
    expectNoCalls(await callsFor(theFleet(), everyonesOrgs));
    const throwaway = await throwawayOrganization(theFleet());
    // Its creator's list is kept naming it (which the index records).
    const creatorsOrgs = () =>
      Promise.all([theFleet().a, theFleet().b].map((s) => view(s, "/orgs", throwaway.creator)));
    for (const html of await creatorsOrgs()) expect(html).toContain(throwaway.name);
    await throwaway.delete();
    expectNoCalls(await callsFor(theFleet(), everyonesOrgs));
    // Its members' kept lists (found through the index) drop it, for no call either.
    let seen: string[] = [];
    expectNoCalls(await callsFor(theFleet(), async () => (seen = await creatorsOrgs())));
    for (const html of seen) expect(html).not.toContain(throwaway.name);
  }, 120_000);

  it("a rename shows on /orgs and the organization's home on both instances, for no Clerk call", async () => {
    const { org, admin } = await newTeam(theFleet().bapi, { members: 1 });
    const cookie = await emulatorCookie(theFleet().clerk.origin, admin.email, org.id);
    const pages = ["/orgs", `/orgs/${org.slug}`];
    const everyView = async (shows: (html: string) => boolean = () => true) => {
      const seen: string[] = [];
      for (const server of [theFleet().a, theFleet().b])
        for (const path of pages) seen.push(await viewUntil(server, path, cookie, shows));
      return seen;
    };
    await everyView();
    expect((await callsFor(theFleet(), everyView)).count).toBe(0);

    const renamed = `Renamed ${org.name}`;
    let seen: string[] = [];
    await inClerk(theFleet(), theFleet().bapi("PATCH", `/v1/organizations/${org.id}`, { name: renamed }));
    const calls = await callsFor(theFleet(), async () => {
      seen = await everyView((html) => html.includes(renamed));
    });
    for (const html of seen) expect(html).toContain(renamed);
    expect(calls.count, calls.detail).toBe(0);
  }, 60_000);

  it("a member added, then removed, shows on both instances for at most one Clerk call each time", async () => {
    const { org, admin } = await newTeam(theFleet().bapi, { members: 1 });
    const joiner = await newPerson(theFleet().bapi, "joiner");
    const [adminCookie, joinerCookie] = await Promise.all([
      emulatorCookie(theFleet().clerk.origin, admin.email, org.id),
      emulatorCookie(theFleet().clerk.origin, joiner.email),
    ]);
    const home = `/orgs/${org.slug}`;
    const everyView = async (shows: (joinerOrgs: string, home: string) => boolean) => {
      const seen: { orgs: string; home: string }[] = [];
      for (const server of [theFleet().a, theFleet().b]) {
        const deadline = Date.now() + 2_000;
        for (;;) {
          const pages = {
            orgs: await view(server, "/orgs", joinerCookie),
            home: await view(server, home, adminCookie),
          };
          if (shows(pages.orgs, pages.home) || Date.now() > deadline) {
            seen.push(pages);
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return seen;
    };
    const joined = (orgs: string, page: string) => orgs.includes(org.name) && page.includes("Joiner Tester");
    await everyView(() => true);
    expect((await callsFor(theFleet(), () => everyView(() => true))).count).toBe(0);

    let seen: { orgs: string; home: string }[] = [];
    const membership = { user_id: joiner.id, role: "org:member" };
    await inClerk(theFleet(), theFleet().bapi("POST", `/v1/organizations/${org.id}/memberships`, membership));
    const added = await callsFor(theFleet(), async () => {
      seen = await everyView(joined);
    });
    for (const pages of seen) expect(joined(pages.orgs, pages.home)).toBe(true);
    expect(added.count, added.detail).toBeLessThanOrEqual(1);

    await inClerk(theFleet(), theFleet().bapi("DELETE", `/v1/organizations/${org.id}/memberships/${joiner.id}`));
    const removed = await callsFor(theFleet(), async () => {
      seen = await everyView((orgs, page) => !orgs.includes(org.name) && !page.includes("Joiner Tester"));
    });
    for (const pages of seen) {
      expect(pages.orgs).not.toContain(org.name);
      expect(pages.home).not.toContain("Joiner Tester");
    }
    expect(removed.count, removed.detail).toBeLessThanOrEqual(1);
  }, 60_000);

  it("a person's deletion leaves other organizations' kept answers alone", async () => {
    const gone = await newTeam(theFleet().bapi, { members: 1 });
    const other = await newTeam(theFleet().bapi, { members: 1 });
    const [goneCookie, otherCookie] = await Promise.all([
      emulatorCookie(theFleet().clerk.origin, gone.members[0]!.email, gone.org.id),
      emulatorCookie(theFleet().clerk.origin, other.admin.email, other.org.id),
    ]);
    const otherViews = async () => {
      for (const server of [theFleet().a, theFleet().b]) {
        await view(server, "/orgs", otherCookie);
        await view(server, `/orgs/${other.org.slug}`, otherCookie);
        await view(server, `/orgs/${other.org.slug}/members`, otherCookie);
      }
    };
    // The person to be deleted has been seen (their memberships kept), and so have the other organization's pages.
    await view(theFleet().a, "/orgs", goneCookie);
    await otherViews();
    expectNoCalls(await callsFor(theFleet(), otherViews));
    expect((await theFleet().bapi("DELETE", `/v1/users/${gone.members[0]!.id}`)).status).toBe(200);
    expectNoCalls(await callsFor(theFleet(), otherViews));
  }, 60_000);
});
