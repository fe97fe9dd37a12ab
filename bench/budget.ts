/**
 * Clerk's budget: how many Backend API calls the app makes per 1,000 page
 * views, on a fleet of instances sharing Redis (2, and 10 on one machine:
 * the figure is calls per view, not speed), with and without Clerk's
 * webhooks. Clerk allows a production application 1,000 calls per 10
 * seconds, shared by every instance: that, divided by the calls a view
 * costs, is how many views a second the app can serve. Also: the whole
 * fleet's cold start (everyone's first views at once, Redis empty), which
 * the fleet's own budget (CLERK_API_CALLS_PER_10S) must keep from Clerk's
 * 429s, and what Redis does per view (for docs/scaling.md).
 */
import { Redis } from "ioredis";
import { redisKey } from "../server/redis-keys";
import { uniqueEmail } from "../tests/support/emulator-api";
import { changeCosts, changeFailures, changeLines, type ChangeCosts } from "./changes";
import { countFailure, honestWait, judgeFailures, outcome } from "./failures";
import { signUpPeople, type Person } from "./people";
import { backendCalls, SHEDDING_ENV } from "./servers";
import {
  describeStatuses,
  notOk,
  printUnexpectedErrors,
  refusedCalls,
  startStack,
  type Servers,
  type Statuses,
} from "./stack";

const ORGANIZATIONS = 20;
/** Views in flight at once during the cold start: a fleet's worth of people arriving together after a deploy. */
const COLD_START_CONCURRENCY = 100;
/** Issue 54's targets for the cold start: a view in a hundred may wait (503 with Retry-After), each person costs Clerk at most 3 calls. */
const COLD_START_MAX_503_SHARE = 0.01;
const COLD_START_MAX_CALLS_PER_PERSON = 3;
/**
 * Each instance's memory: ten of them share the machine. The heap `npm start`
 * sets is 768 MB (docs/deployment.md, "Memory"); the mix needs far less.
 */
const INSTANCE_MEMORY_ENV = { NODE_OPTIONS: "--max-old-space-size=192 --max-semi-space-size=8", MALLOC_ARENA_MAX: "2" };
const PEOPLE_PER_ORGANIZATION = 10;
const RUN_MS = 30_000;
/** A view unanswered after this long is counted as a time-out (an honest 503 comes at once). */
const VIEW_TIMEOUT_MS = 30_000;
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

/** What Redis did during the mix, from INFO before and after (the bench's own INFO left out of the counts). */
export type RedisUse = { commands: number; inputBytes: number; outputBytes: number; byCommand: Record<string, number> };

export type BudgetRun = {
  webhooks: boolean;
  instances: number;
  /**
   * The cold start: everyone's first views, up to 100 at once, spread over
   * the fleet, on fresh instances and an empty Redis (a deploy with Redis
   * emptied). Clerk's 429s must be 0; every view 200 or 503 with Retry-After.
   */
  coldStart: {
    people: number;
    views: number;
    seconds: number;
    calls: number;
    busiest: number;
    refused: number;
    statuses: Statuses;
  };
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
  redis: RedisUse;
  /** With webhooks: what a rename, a membership change and a throwaway organization cost the fleet. */
  changes?: ChangeCosts;
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

/** Redis's counters: commands by name, and bytes in and out. */
async function redisCounters(redis: Redis): Promise<RedisUse> {
  const byCommand: Record<string, number> = {};
  for (const match of (await redis.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    byCommand[match[1]!] = Number(match[2]);
  }
  const stats = await redis.info("stats");
  const stat = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(stats)?.[1] ?? 0);
  const commands = Object.entries(byCommand).reduce((sum, [name, n]) => (name === "info" ? sum : sum + n), 0);
  return {
    commands,
    inputBytes: stat("total_net_input_bytes"),
    outputBytes: stat("total_net_output_bytes"),
    byCommand,
  };
}

function redisUse(before: RedisUse, after: RedisUse): RedisUse {
  const byCommand: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.byCommand)) {
    const used = n - (before.byCommand[name] ?? 0);
    if (used > 0 && name !== "info") byCommand[name] = used;
  }
  return {
    commands: after.commands - before.commands,
    inputBytes: after.inputBytes - before.inputBytes,
    outputBytes: after.outputBytes - before.outputBytes,
    byCommand,
  };
}

/** Clerk's calls read every 500 ms: the most in any 10 s since `from` (its window). */
function busiestWindow(clerk: string, from: number) {
  const seen: number[] = [];
  // A reading the loaded stand-in could not give (a cut answer) is skipped, not a crash of the whole bench.
  const sampler = setInterval(
    () =>
      void backendCalls(clerk).then(
        (calls) => seen.push(calls),
        () => undefined,
      ),
    500,
  );
  return () => {
    clearInterval(sampler);
    const windowSamples = CLERK_WINDOW_MS / 500;
    return Math.max(0, ...seen.map((calls, i) => calls - (seen[i - windowSamples] ?? from)));
  };
}

export type BudgetOptions = { webhooks: boolean; instances: number; basePort: number };

/** One run: a fresh stand-in for Clerk, Redis and `instances` instances; `webhooks` says whether Clerk's webhooks reach them. */
export async function budgetRun(
  servers: Servers,
  { webhooks, instances: size, basePort }: BudgetOptions,
): Promise<BudgetRun> {
  const stack = await startStack(servers, {
    instances: size,
    webhooks,
    basePort,
    instanceEnv: { ...INSTANCE_MEMORY_ENV, RATE_LIMIT_SCALE: "1000", ...SHEDDING_ENV },
  });
  try {
    const { clerk, dataDir, instances, bapi } = stack;
    // 200 people in 20 organizations, each signed in with their organization active.
    const { people, organizations } = await signUpPeople(clerk, bapi, {
      organizations: ORGANIZATIONS,
      perOrganization: PEOPLE_PER_ORGANIZATION,
      name: "Budget",
    });
    const admins = people.filter((p) => p.admin);

    let turn = 0;
    let statuses: Statuses = {};
    // Each view not 200 is counted by its kind: its status (a 503 with or without Retry-After,
    // the shedder's apart), or what became of a request that got no answer (reset, time-out…).
    const view = async ([person, path]: [Person, string]) => {
      const origin = instances[turn++ % instances.length]!;
      // Far longer than any view should take: a view still unanswered then is counted, not waited for.
      const { status, kind } = await outcome(origin + path, { headers: { Cookie: person.cookie } }, VIEW_TIMEOUT_MS);
      if (status !== 200) countFailure(statuses, kind);
    };
    const firstViews = people.flatMap((person) => {
      const pages = [`/orgs/${person.orgSlug}`, "/orgs", "/resources/organizations"];
      if (person.admin) pages.push(`/orgs/${person.orgSlug}/members`);
      return pages.flatMap((path): [Person, string][] => [
        [person, path],
        [person, path],
      ]);
    });

    // The cold start: fresh instances, Redis empty, everyone's first views at once (100 in flight,
    // spread over the fleet), once the bench's own calls setting them up have left Clerk's window.
    await new Promise((r) => setTimeout(r, CLERK_WINDOW_MS));
    const coldStarted = Date.now();
    const [coldCalls, coldRefused] = [await backendCalls(clerk), await refusedCalls(clerk)];
    const coldBusiest = busiestWindow(clerk, coldCalls);
    const queue = [...firstViews];
    await Promise.all(
      Array.from({ length: COLD_START_CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await view(next);
      }),
    );
    const coldStart = {
      people: people.length,
      views: firstViews.length,
      seconds: (Date.now() - coldStarted) / 1000,
      calls: (await backendCalls(clerk)) - coldCalls,
      busiest: coldBusiest(),
      refused: (await refusedCalls(clerk)) - coldRefused,
      statuses,
    };
    statuses = {};

    // Warm-up (not counted): each person's pages again, one person at a time, so that what the
    // cold start answered 503 is kept too before the mix; each phase starts once the last one's
    // calls have left Clerk's window.
    await new Promise((r) => setTimeout(r, CLERK_WINDOW_MS));
    for (let i = 0; i < firstViews.length; i += 8) {
      await Promise.all(firstViews.slice(i, i + 8).map((next) => view(next)));
    }
    statuses = {};
    await new Promise((r) => setTimeout(r, CLERK_WINDOW_MS));

    // The run: people browse; every 10 s someone renames an organization or invites someone, in Clerk.
    const redis = new Redis(stack.redisUrl);
    const redisBefore = await redisCounters(redis);
    const refusedBefore = await refusedCalls(clerk);
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
    const runBusiest = busiestWindow(clerk, callsBefore);
    let offered = 0;
    const inFlight = new Set<Promise<void>>();
    while (Date.now() - started < RUN_MS) {
      const due = Math.floor(((Date.now() - started) / 1000) * VIEWS_PER_SECOND);
      for (; offered < due; offered++) {
        const done = view(pageFor(people, admins));
        inFlight.add(done);
        void done.finally(() => inFlight.delete(done));
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(inFlight);
    clearInterval(changes);
    const seconds = (Date.now() - started) / 1000;
    const busiest = runBusiest();
    // Webhooks sent after the last change still count: wait for them to land.
    await new Promise((r) => setTimeout(r, 1_000));
    const calls = (await backendCalls(clerk)) - callsBefore - ownCalls;
    const refused = (await refusedCalls(clerk)) - refusedBefore;
    let kept = 0;
    let redisUsed: RedisUse;
    try {
      redisUsed = redisUse(redisBefore, await redisCounters(redis));
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", redisKey("cache:*"), "COUNT", 1000);
        kept += keys.length;
        cursor = next;
      } while (cursor !== "0");
    } finally {
      redis.disconnect();
    }
    const views = offered - notOk(statuses);
    // What a change in Clerk costs the fleet once its webhook landed (after the mix: it adds an organization).
    const changeCost = webhooks ? await changeCosts(stack) : undefined;
    if (statuses[500] || coldStart.statuses[500]) printUnexpectedErrors(dataDir);
    return {
      changes: changeCost,
      webhooks,
      instances: size,
      coldStart,
      busiest,
      statuses,
      refused,
      views,
      calls,
      seconds,
      kept,
      redis: redisUsed,
    };
  } finally {
    stack.stop();
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

const describe = describeStatuses;

export const BUDGET_HEADER = [
  `| Clerk's Backend API budget: 200 people, 20 organizations, ${VIEWS_PER_SECOND} views/s offered, instances sharing Redis | page views in the run (not 200) | Backend API calls | calls per 1,000 views | views/s within Clerk's 1,000 calls per 10 s | busiest 10 s of calls | calls refused by Clerk's production rate limits (429; target 0) |`,
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
];

const runName = ({ webhooks, instances }: BudgetRun) =>
  `${instances} instances, ${webhooks ? "with Clerk's webhooks (kept 5 min)" : "without webhooks (kept 2–5 s)"}`;

/** The budget table's rows: calls per 1,000 views, and the views a second Clerk's limit then allows. */
export function budgetRows(runs: BudgetRun[]): string[] {
  return runs.map((run) => {
    const { webhooks, refused, views, statuses, calls, seconds, busiest } = run;
    const per1000 = (calls / views) * 1000;
    const allowed = per1000 === 0 ? "unbounded" : Math.round((CALLS_PER_SECOND * 1000) / per1000).toLocaleString("en");
    const target = webhooks ? ` (target ≤ 10: ${per1000 <= 10 ? "met" : "missed"})` : "";
    return `| ${runName(run)} | ${views.toLocaleString("en")} in ${seconds.toFixed(0)} s (${notOk(statuses)}: ${describe(statuses)}) | ${calls} | ${per1000.toFixed(1)}${target} | ${allowed} | ${busiest} | ${refused} |`;
  });
}

/**
 * The whole fleet's cold start: not part of the budget (it happens once per
 * deploy with Redis empty), but the burst Clerk sees, which the fleet's own
 * budget must keep from its 429s: every view 200 or 503 with Retry-After.
 */
export function coldStartLines(runs: BudgetRun[]): string[] {
  return runs.map((run) => {
    const { people, views, seconds, calls, busiest, refused, statuses } = run.coldStart;
    const others = Object.keys(statuses).filter((kind) => !honestWait(kind));
    const met = refused === 0 && others.length === 0 ? "met" : "missed";
    const perPerson = calls / people;
    const unavailable =
      Object.entries(statuses)
        .filter(([kind]) => kind.startsWith("503"))
        .reduce((sum, [, n]) => sum + n, 0) / views;
    const targets = [
      `0 × 429: ${refused === 0 ? "met" : "missed"}`,
      `≤ 1% of views 503: ${unavailable <= COLD_START_MAX_503_SHARE ? "met" : "missed"}`,
      `≤ ${COLD_START_MAX_CALLS_PER_PERSON} calls per person: ${perPerson <= COLD_START_MAX_CALLS_PER_PERSON ? "met" : "missed"}`,
    ].join("; ");
    return `Cold start, ${runName(run)}: everyone's first ${views.toLocaleString("en")} views (${people} people, ${COLD_START_CONCURRENCY} at once, Redis empty) in ${seconds.toFixed(1)} s cost ${calls} calls, ${perPerson.toFixed(1)} per person, busiest 10 s ${busiest}; ${refused} refused by Clerk (429); ${(unavailable * 100).toFixed(1)}% of views 503; not 200: ${describe(statuses)} (every view 200 or 503 with Retry-After: ${met}; ${targets}).`;
  });
}

/**
 * Each run's failures by kind, judged: the mix and the cold start may meet
 * an honest wait (the budget's or the shedder's 503, a person's 429, each
 * with Retry-After); anything else (a 500, a reset, a time-out, a view
 * never answered) fails the bench.
 */
export function budgetFailureLines(runs: BudgetRun[]): string[] {
  return runs.flatMap((run) => [
    judgeFailures(`Budget, ${runName(run)}, the mix`, run.statuses, honestWait),
    judgeFailures(`Budget, ${runName(run)}, the cold start`, run.coldStart.statuses, honestWait),
    // After a change, warm pages on a quiet fleet: every view 200.
    ...(run.changes
      ? [judgeFailures(`Budget, ${runName(run)}, views after a change`, changeFailures(run.changes))]
      : []),
  ]);
}

/** What a change in Clerk costs the fleet, for the runs with webhooks. */
export function changesLines(runs: BudgetRun[]): string[] {
  return runs.flatMap((run) => (run.changes ? changeLines(runName(run), run.changes) : []));
}

/** What Redis did per view during the mix: commands and bytes (for docs/scaling.md). */
export function redisLines(runs: BudgetRun[]): string[] {
  return runs.map((run) => {
    const { commands, inputBytes, outputBytes, byCommand } = run.redis;
    const perView = (n: number) => (n / run.views).toFixed(2);
    const top = Object.entries(byCommand)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([name, n]) => `${name} ${perView(n)}`)
      .join(", ");
    return `Redis in the mix, ${runName(run)}: ${perView(commands)} commands per view (${top}); ${(inputBytes / run.views).toFixed(0)} bytes in and ${(outputBytes / run.views).toFixed(0)} out per view; ${((commands / run.seconds) | 0).toLocaleString("en")} commands/s at ${(run.views / run.seconds).toFixed(0)} views/s.`;
  });
}
