/**
 * Clerk's budget: how many Backend API calls the app makes per 1,000 page
 * views, on two instances sharing Redis, with and without Clerk's webhooks.
 * Clerk allows a production application 1,000 calls per 10 seconds, shared
 * by every instance: that, divided by the calls a view costs, is how many
 * views a second the app can serve.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { backendApi, newPerson, uniqueEmail } from "../tests/support/emulator-api";
import { emulatorSession } from "../tests/support/session";
import { newWebhookSecret } from "../tests/support/webhooks";
import { backendCalls } from "./servers";

const ORGANIZATIONS = 20;
const PEOPLE_PER_ORGANIZATION = 10;
const RUN_MS = 30_000;
const CHANGE_EVERY_MS = 10_000;
/**
 * Views offered per second, both instances together, whatever their speed:
 * people do not browse faster because the server got faster, and Clerk's
 * limit is per second, so a closed loop would measure the server, not the budget.
 */
export const VIEWS_PER_SECOND = 200;
/** Clerk's limit is a sliding window: the warm-up and the run each start once the calls before have left it. */
const CLERK_WINDOW_MS = 10_000;
/** Clerk's Backend API limit for a production application. */
const CALLS_PER_SECOND = 1_000 / 10;

type Person = { cookie: string; orgSlug: string; admin: boolean };
type Servers = {
  /** Starts `node build/server.js` (the bench's own helper, which stops it at the end). */
  startServer(name: string, env: Record<string, string>): ChildProcess;
  waitFor(url: string): Promise<void>;
  /** The environment an instance needs to use the stand-in for Clerk at `origin` (keys, API URL). */
  clerkKeys(dataDir: string, origin: string): Record<string, string>;
};

/** Views that were not 200, by status (or "no answer"). */
type Statuses = Record<string, number>;

export type BudgetRun = {
  webhooks: boolean;
  /** The cold start: everyone's first views at once, on both instances. */
  warmUp: { views: number; seconds: number; calls: number; refused: number; statuses: Statuses };
  /** The most calls Clerk saw in any 10 s of the run (sampled every 500 ms), against its 1,000. */
  busiest: number;
  statuses: Statuses;
  /** Backend API calls Clerk's production rate limits refused (429) during the mix. */
  refused: number;
  /** Views answered 200 (the others are in `statuses`). */
  views: number;
  calls: number;
  seconds: number;
  /** The answers kept in Redis at the end: each is read again from Clerk at most once per shared lifetime. */
  kept: number;
};

/** The mix: half the views an organization's home, a quarter its members (admins), 15% /orgs, 10% the switcher's list. */
function pageFor(people: Person[], admins: Person[]): [Person, string] {
  const roll = Math.random();
  if (roll < 0.25) {
    const admin = admins[Math.floor(Math.random() * admins.length)]!;
    return [admin, `/orgs/${admin.orgSlug}/members`];
  }
  const person = people[Math.floor(Math.random() * people.length)]!;
  if (roll < 0.75) return [person, `/orgs/${person.orgSlug}`];
  if (roll < 0.9) return [person, "/orgs"];
  return [person, "/resources/organizations"];
}

/** One run: a fresh stand-in for Clerk, Redis and two instances; `webhooks` says whether Clerk's webhooks reach them. */
export async function budgetRun(servers: Servers, webhooks: boolean, basePort: number): Promise<BudgetRun> {
  const ports = { clerk: basePort, a: basePort + 1, b: basePort + 2, redis: basePort + 3 };
  const secret = newWebhookSecret();
  const children = [
    spawn("redis-server", ["--port", String(ports.redis), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    }),
  ];
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "teamwork-bench-budget-"));
    const clerk = `http://127.0.0.1:${ports.clerk}`;
    children.push(
      servers.startServer("clerk", {
        PORT: String(ports.clerk),
        CLERK_EMULATOR_DATA_DIR: dataDir,
        CLERK_EMULATOR_TOKEN_TTL: "3600",
        CLERK_EMULATOR_CONTROL: "1",
        // Clerk's production limits (1,000 Backend API calls per 10 s…): the mix must meet none.
        CLERK_EMULATOR_RATE_LIMITS: "production",
        RATE_LIMIT_SCALE: "1000",
        LOG_LEVEL: "silent",
        ...(webhooks
          ? {
              // Clerk sends each webhook to the deployment's address; here, to instance A (it tells B through Redis).
              CLERK_EMULATOR_WEBHOOK_URL: `http://127.0.0.1:${ports.a}/webhooks/clerk`,
              CLERK_EMULATOR_WEBHOOK_SECRET: secret,
            }
          : { CLERK_EMULATOR_WEBHOOKS: "off" }),
      }),
    );
    await servers.waitFor(`${clerk}/healthz`);
    const instances = [ports.a, ports.b].map((port) => `http://127.0.0.1:${port}`);
    for (const port of [ports.a, ports.b]) {
      children.push(
        servers.startServer("instance", {
          ...servers.clerkKeys(dataDir, clerk),
          PORT: String(port),
          PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
          REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
          RATE_LIMIT_SCALE: "1000",
          LOG_LEVEL: "silent",
          ...(webhooks ? { CLERK_WEBHOOK_SIGNING_SECRET: secret } : {}),
        }),
      );
    }
    await Promise.all(instances.map((origin) => servers.waitFor(`${origin}/healthz`)));

    // 200 people in 20 organizations, each signed in with their organization active.
    const bapi = backendApi(clerk, dataDir);
    const people: Person[] = [];
    const organizations: { id: string; adminId: string }[] = [];
    for (let o = 0; o < ORGANIZATIONS; o++) {
      const team = await Promise.all(
        Array.from({ length: PEOPLE_PER_ORGANIZATION }, (_, i) => newPerson(bapi, i === 0 ? "admin" : "member")),
      );
      const org = (await bapi("POST", "/v1/organizations", { name: `Budget ${o}`, created_by: team[0]!.id })).body;
      await Promise.all(
        team
          .slice(1)
          .map((p) => bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: p.id, role: "org:member" })),
      );
      organizations.push({ id: org.id, adminId: team[0]!.id });
      for (const [i, person] of team.entries()) {
        const session = await emulatorSession(clerk, person.email, org.id);
        const cookie = session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
        people.push({ cookie, orgSlug: org.slug, admin: i === 0 });
      }
    }
    const admins = people.filter((p) => p.admin);

    let turn = 0;
    let statuses: Statuses = {};
    const count = (status: number | string) => (statuses[status] = (statuses[status] ?? 0) + 1);
    const view = async ([person, path]: [Person, string]) => {
      const origin = instances[turn++ % instances.length]!;
      const res = await fetch(origin + path, { headers: { Cookie: person.cookie }, redirect: "manual" });
      await res.arrayBuffer();
      if (res.status !== 200) count(res.status);
    };
    const refusedCalls = async () =>
      ((await (await fetch(`${clerk}/__clerk/_emulator/rate-limited`)).json()) as { bapi: number }).bapi;

    // Warm-up: everyone's pages once, on both instances (the caches start cold after a deploy, too),
    // once the bench's own calls setting them up have left Clerk's window.
    await new Promise((r) => setTimeout(r, CLERK_WINDOW_MS));
    const warmUpStarted = Date.now();
    const [warmUpCalls, warmUpRefused] = [await backendCalls(clerk), await refusedCalls()];
    let warmUpViews = 0;
    for (const person of people) {
      const pages = [`/orgs/${person.orgSlug}`, "/orgs", "/resources/organizations"];
      if (person.admin) pages.push(`/orgs/${person.orgSlug}/members`);
      await Promise.all(pages.flatMap((path) => [view([person, path]), view([person, path])]));
      warmUpViews += pages.length * 2;
    }
    const warmUp = {
      views: warmUpViews,
      seconds: (Date.now() - warmUpStarted) / 1000,
      calls: (await backendCalls(clerk)) - warmUpCalls,
      refused: (await refusedCalls()) - warmUpRefused,
      statuses,
    };
    statuses = {};
    await new Promise((r) => setTimeout(r, CLERK_WINDOW_MS));

    // The run: people browse; every 10 s someone renames an organization or invites someone, in Clerk.
    const refusedBefore = await refusedCalls();
    const callsBefore = await backendCalls(clerk);
    let ownCalls = 0;
    let change = 0;
    const changes = setInterval(() => {
      const org = organizations[change % organizations.length]!;
      ownCalls += 1;
      void (change++ % 2 === 0
        ? bapi("PATCH", `/v1/organizations/${org.id}`, { name: `Budget renamed ${change}` })
        : bapi("POST", `/v1/organizations/${org.id}/invitations`, {
            email_address: uniqueEmail("invited"),
            inviter_user_id: org.adminId,
            role: "org:member",
          }));
    }, CHANGE_EVERY_MS);
    const started = Date.now();
    const seen: number[] = [];
    const sampler = setInterval(() => void backendCalls(clerk).then((calls) => seen.push(calls)), 500);
    let offered = 0;
    const inFlight = new Set<Promise<void>>();
    while (Date.now() - started < RUN_MS) {
      const due = Math.floor(((Date.now() - started) / 1000) * VIEWS_PER_SECOND);
      for (; offered < due; offered++) {
        const done = view(pageFor(people, admins)).catch(() => void count("no answer"));
        inFlight.add(done);
        void done.finally(() => inFlight.delete(done));
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(inFlight);
    clearInterval(changes);
    clearInterval(sampler);
    const seconds = (Date.now() - started) / 1000;
    const windowSamples = CLERK_WINDOW_MS / 500;
    const busiest = Math.max(0, ...seen.map((calls, i) => calls - (seen[i - windowSamples] ?? callsBefore)));
    // Webhooks sent after the last change still count: wait for them to land.
    await new Promise((r) => setTimeout(r, 1_000));
    const calls = (await backendCalls(clerk)) - callsBefore - ownCalls;
    const refused = (await refusedCalls()) - refusedBefore;
    const redis = new Redis(`redis://127.0.0.1:${ports.redis}`);
    let kept = 0;
    try {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", "teamwork:cache:*", "COUNT", 1000);
        kept += keys.length;
        cursor = next;
      } while (cursor !== "0");
    } finally {
      redis.disconnect();
    }
    const views = offered - notOk(statuses);
    return { webhooks, warmUp, busiest, statuses, refused, views, calls, seconds, kept };
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

/**
 * What the run is too short to show: with webhooks each kept answer is read
 * again when its 5 minutes are up, whatever the traffic. A cost per second,
 * not per view: it shrinks per view as views grow.
 */
export function refreshCost(run: BudgetRun): string {
  const perSecond = run.kept / 300;
  return `With webhooks, ${run.kept} answers were kept in Redis; reading each again every 5 minutes costs at most ${perSecond.toFixed(1)} calls/s (${((perSecond / CALLS_PER_SECOND) * 100).toFixed(1)}% of Clerk's 100/s), whatever the number of views.`;
}

const notOk = (statuses: Statuses) => Object.values(statuses).reduce((sum, n) => sum + n, 0);

const describe = (statuses: Statuses) =>
  Object.entries(statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(", ") || "none";

export const BUDGET_HEADER = [
  `| Clerk's Backend API budget: 2 instances + Redis, 200 people, 20 organizations, ${VIEWS_PER_SECOND} views/s offered | page views in the run (not 200) | Backend API calls | calls per 1,000 views | views/s within Clerk's 1,000 calls per 10 s | busiest 10 s of calls | calls refused by Clerk's production rate limits (429; target 0) |`,
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
];

/** The budget table's rows: calls per 1,000 views, and the views a second Clerk's limit then allows. */
export function budgetRows(runs: BudgetRun[]): string[] {
  return runs.map(({ webhooks, refused, views, statuses, calls, seconds, busiest }) => {
    const per1000 = (calls / views) * 1000;
    const allowed = per1000 === 0 ? "unbounded" : Math.round((CALLS_PER_SECOND * 1000) / per1000).toLocaleString("en");
    const target = webhooks ? ` (target ≤ 10: ${per1000 <= 10 ? "met" : "missed"})` : "";
    return `| ${webhooks ? "with Clerk's webhooks (kept 5 min)" : "without webhooks (kept 2–5 s)"} | ${views.toLocaleString("en")} in ${seconds.toFixed(0)} s (${notOk(statuses)}: ${describe(statuses)}) | ${calls} | ${per1000.toFixed(1)}${target} | ${allowed} | ${busiest} | ${refused} |`;
  });
}

/** What the cold start cost: not part of the budget (it happens once per deploy when Redis is empty), but a burst Clerk sees. */
export function warmUpLines(runs: BudgetRun[]): string[] {
  return runs.map(
    ({ webhooks, warmUp }) =>
      `Cold start ${webhooks ? "with" : "without"} webhooks: everyone's first ${warmUp.views.toLocaleString("en")} views in ${warmUp.seconds.toFixed(1)} s cost ${warmUp.calls} calls, ${warmUp.refused} refused by Clerk; not 200: ${describe(warmUp.statuses)}.`,
  );
}
