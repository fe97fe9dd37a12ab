/**
 * Fair share (issue 54): can one person, one flood of client addresses, or a
 * crowd of accounts spend Clerk's budget so that someone else's page, sign-in
 * or form fails? Two instances in keys mode (a pk_live_ key: the fleet's
 * default budget, 900 calls per 10 s), one redis-server, Clerk's webhooks on,
 * production rate limits. For each attack path in turn, ONE member at 16
 * connections while 10 other people each view a page on each instance every
 * 500 ms: the attacker's answers, the Clerk calls the attack caused per
 * minute (target ≤ 60) and the others' answers (target: all 200).
 *
 * Then the handshake floods, each while a real person's handshake returns on
 * each instance: made-up nonces with no state of the app's (unbound: never
 * read, 0 calls), made-up nonces each returned from a handshake the attacker
 * started (bound: read, charged to the 1,000 addresses and the anonymous
 * pool), and the same carrying a member's own token leaked 19 minutes after it
 * expired (charged to the addresses, not to its owner, whose own return and
 * pages must go on). And 100 accounts (a Sybil crowd, each a member) spending
 * every deferrable path at once while other people sign in through the
 * handshake, sign out without JavaScript, send forms and view pages: the
 * crowd together is held to the deferrable share (540 calls per 11 s), the
 * others' needed calls all succeed, and Clerk refuses nothing.
 *
 * The attacker's calls: Clerk's calls during the attack less what the others
 * cost alone, measured first for as long with no attacker (their rate of
 * calls, warm caches, webhooks on). Whatever the attack makes the others'
 * pages cost on top (caches it empties) is the attacker's doing, and counted.
 */
import { randomBytes } from "node:crypto";
import { emulatorCalls, newPerson } from "../tests/support/emulator-api";
import { browserCookies, emulatorSession, emulatorToken } from "../tests/support/session";
import { madeUpReturn, realHandshake, type HandshakeResult } from "./handshake";
import { describeFailures, errorKind, failureCount, judgeFailures } from "./failures";
import {
  countStatus,
  notOk,
  printUnexpectedErrors,
  refusedCalls,
  startStack,
  type Servers,
  type Stack,
  type Statuses,
} from "./stack";

/** How long each attack (and the others' baseline) lasts; BENCH_FAIR_SHARE_SECONDS shortens it for a quick check. */
export const FAIR_SHARE_SECONDS = 30;
const ATTACK_CONNECTIONS = 16;
const OTHERS = 10;
const OTHERS_EVERY_MS = 500;
const FLOOD_ADDRESSES = 1_000;
/** Issue 54: a person causes at most 60 Clerk calls a minute (in production). */
const CALLS_PER_MINUTE_TARGET = 60;
/** A person's allowance (production): the leaked token's owner's handshake is tried once the attacker sent more than this. */
const PERSON_ALLOWANCE = 60;
/**
 * Anonymous work as a whole (production: 10% of the fleet's 5,400 calls a
 * minute, app/lib/upstream/call-budget.server.ts): what made-up nonces from
 * any number of addresses may cost, over a sliding minute.
 */
const ANONYMOUS_PER_MINUTE = 540;
const ANONYMOUS_WINDOW_MS = 60_000;
/** Deferrable calls together (production: 60% of the fleet's 900 per 11 s, DEFERRABLE_SHARE). */
const DEFERRABLE_PER_WINDOW = 540;
const FLEET_WINDOW_S = 11;
/** Made-up nonces of a leaked token: its owner's own, expired this long ago (past the 10 minutes' rescue window). */
const LEAKED_TOKEN_AGE_S = 19 * 60;
/** The Sybil crowd: accounts, made this many at a time; their connections in all, round-robin. */
const SYBILS = 100;
const SYBIL_SETUP_BATCH = 10;
const SYBIL_CONNECTIONS = 24;
/**
 * The others' needed work during the Sybils: each person one action every 2 s
 * (a handshake, a sign-out, an organization or a theme form, in turn), on the
 * instances alternately: 7.5 sign-outs a minute each, under the 10 a person
 * may make; and at most 2 organizations each per phase (10 an hour allowed).
 */
const ACTION_EVERY_MS = 2_000;
const CREATIONS_PER_PHASE = 2;
/**
 * Between attacks: Clerk's window (10 s) and the fleet budget's (11 s) are
 * empty again, so each attack starts on a full budget. Each attack is made
 * by a member of its own, so no person's allowance carries over either.
 */
const QUIET_MS = 11_000;
/** The attacker re-sends their own tokens, expired up to 10 minutes ago (one a minute, as clerk-js got them). */
const STALE_TOKEN_AGES_S = Array.from({ length: 10 }, (_, i) => 30 + i * 55);
const HANDSHAKE_PAYLOAD = "bapi GET /v1/clients/handshake_payload";

type Person = { cookie: string; address: string; orgSlug: string };
type Other = Person & { email: string; orgId: string };
type Member = Other & { session: Awaited<ReturnType<typeof emulatorSession>> };
type Attacker = Member & { staleCookies: string[] };
type AttackPath = {
  name: string;
  request(attacker: Person & { orgId: string; staleCookies: string[] }, origin: string): [string, RequestInit];
};

const documentHeaders = (person: Pick<Person, "cookie" | "address">, extra: Record<string, string> = {}) => ({
  Cookie: person.cookie,
  Accept: "text/html",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-Mode": "navigate",
  "X-Forwarded-For": person.address,
  ...extra,
});
const formHeaders = (person: Pick<Person, "cookie" | "address">, origin: string) =>
  documentHeaders(person, { "Content-Type": "application/x-www-form-urlencoded", Origin: origin });
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;

/** The deferrable paths (call-budget.server), each with a token the person really had (their own organization's id for `?left=`). */
const ORGANIZATIONS_LEFT: AttackPath = {
  name: "GET /resources/organizations?left=<own org>",
  request: (a, origin) => [
    `${origin}/resources/organizations?left=${a.orgId}`,
    { headers: { Cookie: a.cookie, Accept: "application/json", "X-Forwarded-For": a.address } },
  ],
};
const ORGS_LEFT: AttackPath = {
  name: "GET /orgs?left=<own org>",
  request: (a, origin) => [`${origin}/orgs?left=${a.orgId}`, { headers: documentHeaders(a) }],
};
const MEMBERS_SEARCH: AttackPath = {
  name: "GET /orgs/:slug/members?q=<random>",
  request: (a, origin) => [
    `${origin}/orgs/${a.orgSlug}/members?q=${randomBytes(4).toString("hex")}`,
    { headers: documentHeaders(a) },
  ],
};

/** The paths of issue 54's attack, each with a token the person really had. */
const ATTACK_PATHS: AttackPath[] = [
  ORGANIZATIONS_LEFT,
  ORGS_LEFT,
  {
    name: "POST /resources/theme, own token expired ≤ 10 min ago",
    request: (a, origin) => [
      `${origin}/resources/theme`,
      {
        method: "POST",
        headers: formHeaders({ ...a, cookie: pick(a.staleCookies) }, origin),
        body: new URLSearchParams({ theme: pick(["light", "dark", "system"]), redirectTo: "/orgs" }).toString(),
      },
    ],
  },
  MEMBERS_SEARCH,
  {
    name: "GET /orgs/:slug.data (the org home's data)",
    request: (a, origin) => [
      `${origin}/orgs/${a.orgSlug}.data`,
      { headers: { Cookie: a.cookie, "X-Forwarded-For": a.address } },
    ],
  },
];

/** What each Sybil spends, round-robin: every deferrable path. */
const SYBIL_PATHS: AttackPath[] = [MEMBERS_SEARCH, ORGS_LEFT, ORGANIZATIONS_LEFT];

/**
 * A request's answer, read to the end: its status (and whether a 429/503 said when to come back), or
 * what became of it without one (bench/failures.ts: "reset", "timeout"…).
 */
export async function answer(url: string, init: RequestInit): Promise<number | string> {
  try {
    const res = await fetch(url, { ...init, redirect: "manual" });
    await res.arrayBuffer();
    const unannounced = (res.status === 429 || res.status === 503) && !res.headers.get("retry-after");
    return unannounced ? `${res.status} without Retry-After` : res.status;
  } catch (error) {
    return errorKind(error);
  }
}

const send = async (url: string, init: RequestInit, statuses: Statuses) =>
  countStatus(statuses, await answer(url, init));

/** The 10 others, each viewing one of their pages on each instance every 500 ms, until `stop()`; all their answers, by status. */
function othersBrowse(others: Person[], instances: string[]) {
  const statuses: Statuses = {};
  let running = true;
  const loops = others.map(async (person, i) => {
    const pages = [`/orgs/${person.orgSlug}`, "/orgs", "/resources/organizations"];
    await sleep((i * OTHERS_EVERY_MS) / others.length);
    for (let turn = 0; running; turn++) {
      const started = Date.now();
      await Promise.all(
        instances.map((origin) =>
          send(origin + pages[turn % pages.length], { headers: documentHeaders(person) }, statuses),
        ),
      );
      await sleep(Math.max(0, OTHERS_EVERY_MS - (Date.now() - started)));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return statuses;
  };
}

/** `person`'s real handshake return on `origin` (bench/handshake.ts), from their own address. */
const handshakeOf = (stack: Stack, origin: string, person: { email: string; orgId: string; address: string }) =>
  realHandshake(stack.clerk, stack.dataDir, origin, person).catch((): HandshakeResult => ({
    completed: false,
    hops: ["no answer"],
  }));

/** The others' needed work, by kind, and what counts as its success. */
const HANDSHAKES = "real handshake returns (their own addresses)";
const SIGN_OUTS = "no-JS sign-outs (POST /resources/sign-out, a new session each)";
const CREATIONS = "organizations created (POST /orgs/new)";
const THEMES = "theme forms (POST /resources/theme)";
const ACTIONS = { [HANDSHAKES]: "completed", [SIGN_OUTS]: "303", [CREATIONS]: "303", [THEMES]: "303" } as const;
type Action = keyof typeof ACTIONS;

/**
 * The others' needed work, until `stop()`: each person, every 2 s on the
 * instances alternately, in turn a real handshake return (a browser of
 * theirs whose token expired a minute ago), a sign-out without JavaScript
 * (a new session of theirs, ended), a new organization (2 at most each,
 * then a theme form instead) and a theme form. Each kind's answers.
 */
function othersAct(stack: Stack, others: Other[]) {
  const outcomes = Object.fromEntries(Object.keys(ACTIONS).map((kind) => [kind, {}])) as Record<Action, Statuses>;
  let running = true;
  const loops = others.map(async (person, i) => {
    let created = 0;
    await sleep((i * ACTION_EVERY_MS) / others.length);
    for (let turn = 0; running; turn++) {
      const started = Date.now();
      const origin = stack.instances[(turn + i) % stack.instances.length]!;
      const step = turn % 4;
      if (step === 0) {
        const { completed, hops } = await handshakeOf(stack, origin, person);
        countStatus(outcomes[HANDSHAKES], completed ? "completed" : hops.join(" → "));
      } else if (step === 1) {
        const session = await emulatorSession(stack.clerk, person.email, person.orgId).catch(() => null);
        const cookie = session?.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
        const headers = formHeaders({ cookie: cookie ?? "", address: person.address }, origin);
        countStatus(
          outcomes[SIGN_OUTS],
          cookie === undefined
            ? "no session from the stand-in"
            : await answer(`${origin}/resources/sign-out`, { method: "POST", headers, body: "" }),
        );
      } else if (step === 2 && created < CREATIONS_PER_PHASE) {
        created += 1;
        const body = new URLSearchParams({ name: `Side project ${randomBytes(4).toString("hex")}`, slug: "" });
        countStatus(
          outcomes[CREATIONS],
          await answer(`${origin}/orgs/new`, { method: "POST", headers: formHeaders(person, origin), body: `${body}` }),
        );
      } else {
        const body = new URLSearchParams({ theme: pick(["light", "dark", "system"]), redirectTo: "/orgs" });
        countStatus(
          outcomes[THEMES],
          await answer(`${origin}/resources/theme`, {
            method: "POST",
            headers: formHeaders(person, origin),
            body: `${body}`,
          }),
        );
      }
      await sleep(Math.max(0, ACTION_EVERY_MS - (Date.now() - started)));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return outcomes;
  };
}

export type OthersWork = { views: Statuses; actions: Record<Action, Statuses> };

/** The others viewing pages and doing their needed work while `work()` runs. */
async function othersWork(stack: Stack, others: Other[], work: () => Promise<void>): Promise<OthersWork> {
  const [browsing, acting] = [othersBrowse(others, stack.instances), othersAct(stack, others)];
  await work();
  return { views: await browsing(), actions: await acting() };
}

/**
 * `connections` loops making `attempt(origin, n)` (n: the attempt's number
 * among all) for `ms`, alternating instances; the answers by status, counted
 * into `statuses` as they come (so the caller may watch them).
 */
async function flood(
  ms: number,
  connections: number,
  instances: string[],
  attempt: (origin: string, n: number) => Promise<number | string>,
  statuses: Statuses = {},
) {
  const until = Date.now() + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let turn = c; Date.now() < until; turn++)
        countStatus(statuses, await attempt(instances[turn % instances.length]!, n++));
    }),
  );
  return statuses;
}

export type AttackResult = {
  /** Clerk's busiest endpoints during the attack, per minute (the others' calls included). */
  endpoints: string;
  path: string;
  attacker: Statuses;
  callsPerMinute: number;
  others: Statuses;
  refused: number;
};
export type FloodResult = {
  flood: Statuses;
  handshakes: HandshakeResult[];
  /** Clerk's calls during the flood, the real returns' included; `reads` of them handshake payloads. */
  calls: number;
  reads: number;
  refused: number;
};
export type LeakedResult = FloodResult & { ownerViews: Statuses };
export type SybilResult = {
  setupSeconds: number;
  /** Each path's answers to the Sybils. */
  sybils: Record<string, Statuses>;
  /** Clerk's calls during the Sybils less the others' own (their rate alone, for as long). */
  calls: number;
  /** Clerk's calls during the Sybils, the others' included. */
  duringCalls: number;
  endpoints: string;
  alone: OthersWork & { calls: number };
  during: OthersWork;
  refused: number;
};
export type FairShare = {
  seconds: number;
  baseline: { callsPerMinute: number; others: Statuses };
  attacks: AttackResult[];
  nonces: FloodResult;
  bound: FloodResult;
  leaked: LeakedResult;
  sybil: SybilResult;
};

/** Backend API calls per endpoint between two readings of the stand-in's counters, most first. */
function backendUse(before: Record<string, number>, after: Record<string, number>): [string, number][] {
  return Object.entries(after)
    .filter(([endpoint]) => endpoint.startsWith("bapi "))
    .map(([endpoint, n]): [string, number] => [endpoint, n - (before[endpoint] ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** Clerk's Backend API calls while `work()` runs, by endpoint, and how long it ran. */
async function clerkUse(clerk: string, work: () => Promise<void>) {
  const before = await emulatorCalls(clerk);
  const started = Date.now();
  await work();
  const used = backendUse(before, await emulatorCalls(clerk));
  return { used, ms: Date.now() - started, total: used.reduce((sum, [, n]) => sum + n, 0) };
}

/** The three busiest endpoints, each with its calls divided by `per` (and `unit` after them). */
const busiest = (used: [string, number][], per = 1, unit = "") =>
  used
    .slice(0, 3)
    .map(([endpoint, n]) => `${endpoint.slice("bapi ".length)} ${(n / per).toFixed(0)}${unit}`)
    .join(", ");

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A member of `org` (a new person), signed in with it active, with (unless
 * `staleTokens` is false) the tokens they had in the last 10 minutes.
 */
async function newMember(
  stack: Stack,
  org: { id: string; slug: string },
  address: string,
  { staleTokens = true } = {},
): Promise<Attacker> {
  const person = await newPerson(stack.bapi, "attacker");
  await stack.bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: person.id, role: "org:member" });
  const session = await emulatorSession(stack.clerk, person.email, org.id);
  const now = Math.floor(Date.now() / 1000);
  const staleCookies = (staleTokens ? STALE_TOKEN_AGES_S : []).map((age) => {
    const exp = now - age;
    const token = emulatorToken(
      stack.dataDir,
      session,
      { iat: exp - 60, exp },
      {
        org: { id: org.id, slug: org.slug, role: "org:member" },
      },
    );
    return browserCookies(session, token, exp - 120);
  });
  const cookie = session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
  return { cookie, address, email: person.email, orgSlug: org.slug, orgId: org.id, session, staleCookies };
}

/** An organization of `size` new people (the first its admin), each signed in with it active and given a client address. */
async function newOrganization(stack: Stack, name: string, size: number, firstAddress: number) {
  const team = await Promise.all(Array.from({ length: size }, () => newPerson(stack.bapi, "other")));
  const org = (await stack.bapi("POST", "/v1/organizations", { name, created_by: team[0]!.id })).body as {
    id: string;
    slug: string;
  };
  for (const person of team.slice(1))
    await stack.bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: person.id, role: "org:member" });
  const people: Other[] = [];
  for (const [i, person] of team.entries()) {
    const session = await emulatorSession(stack.clerk, person.email, org.id);
    const cookie = session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
    people.push({
      cookie,
      email: person.email,
      address: `198.51.100.${firstAddress + i}`,
      orgSlug: org.slug,
      orgId: org.id,
    });
  }
  return { org, people };
}

/** Rotating client addresses in `10.<block>.x.y`, FLOOD_ADDRESSES of them. */
function rotatingAddresses(block: number) {
  let address = 0;
  return () => {
    const client = (address = (address + 1) % FLOOD_ADDRESSES);
    return `10.${block}.${client >> 8}.${client & 255}`;
  };
}

/**
 * A flood of handshake returns (`attempt`) at 16 connections for `ms`, and
 * `real`'s own handshake return on each instance once the flood has sent
 * more than a person's allowance and run a third of its time (5 s at most),
 * or half of it: the flood's answers, the real returns, Clerk's calls (its
 * handshake reads apart) and refusals.
 */
async function handshakeFlood(
  stack: Stack,
  ms: number,
  attempt: (origin: string) => Promise<number | string>,
  real: { email: string; orgId: string; address: string },
): Promise<FloodResult> {
  const refusedBefore = await refusedCalls(stack.clerk);
  const statuses: Statuses = {};
  const handshakes: HandshakeResult[] = [];
  const { used, total } = await clerkUse(stack.clerk, async () => {
    const started = Date.now();
    const flooding = flood(ms, ATTACK_CONNECTIONS, stack.instances, attempt, statuses);
    const underWay = () =>
      (Date.now() - started >= Math.min(ms / 3, 5_000) && all(statuses) > PERSON_ALLOWANCE) ||
      Date.now() - started >= ms / 2;
    while (!underWay()) await sleep(100);
    for (const origin of stack.instances) handshakes.push(await handshakeOf(stack, origin, real));
    await flooding;
  });
  return {
    flood: statuses,
    handshakes,
    calls: total,
    reads: used.find(([endpoint]) => endpoint === HANDSHAKE_PAYLOAD)?.[1] ?? 0,
    refused: (await refusedCalls(stack.clerk)) - refusedBefore,
  };
}

/**
 * The Sybil crowd: 100 new members of `org`, made 10 at a time; once the
 * others' pages are kept again, their pages and needed work alone for `ms`
 * (their calls), then again while the crowd spends every deferrable path at
 * 24 connections, round-robin over the accounts, instances and paths.
 */
async function sybilRow(stack: Stack, ms: number, org: { id: string; slug: string }, others: Other[]) {
  const setupStarted = Date.now();
  const sybils: Attacker[] = [];
  for (let i = 0; i < SYBILS; i += SYBIL_SETUP_BATCH) {
    const batch = Array.from({ length: Math.min(SYBIL_SETUP_BATCH, SYBILS - i) }, (_, j) =>
      newMember(stack, org, `198.18.${(i + j) >> 8}.${(i + j) & 255}`, { staleTokens: false }),
    );
    sybils.push(...(await Promise.all(batch)));
  }
  const setupSeconds = (Date.now() - setupStarted) / 1000;
  // The crowd's joining (100 webhooks) emptied the organization's caches: the others' pages kept again, uncounted.
  const warm = othersBrowse(others, stack.instances);
  await sleep(Math.min(ms, 10_000));
  await warm();
  await sleep(QUIET_MS);

  let alone: OthersWork | undefined;
  const aloneUse = await clerkUse(stack.clerk, async () => {
    alone = await othersWork(stack, others, () => sleep(ms));
  });
  await sleep(QUIET_MS);

  const refusedBefore = await refusedCalls(stack.clerk);
  const sybilStatuses: Record<string, Statuses> = Object.fromEntries(SYBIL_PATHS.map((p) => [p.name, {}]));
  let during: OthersWork | undefined;
  const duringUse = await clerkUse(stack.clerk, async () => {
    during = await othersWork(stack, others, async () => {
      await flood(ms, SYBIL_CONNECTIONS, stack.instances, async (origin, n) => {
        // 100 accounts and 3 paths have no common factor: every account on every path within 300 requests.
        const path = SYBIL_PATHS[n % SYBIL_PATHS.length]!;
        const status = await answer(...path.request(sybils[n % SYBILS]!, origin));
        countStatus(sybilStatuses[path.name]!, status);
        return status;
      });
    });
  });
  return {
    setupSeconds,
    sybils: sybilStatuses,
    // The others' calls at their rate alone, for as long as the Sybils ran.
    calls: duringUse.total - aloneUse.total * (duringUse.ms / aloneUse.ms),
    duringCalls: duringUse.total,
    endpoints: busiest(duringUse.used),
    alone: { ...alone!, calls: aloneUse.total },
    during: during!,
    refused: (await refusedCalls(stack.clerk)) - refusedBefore,
  } satisfies SybilResult;
}

export async function fairShareRun(servers: Servers, basePort: number): Promise<FairShare> {
  const seconds = Number(process.env.BENCH_FAIR_SHARE_SECONDS ?? FAIR_SHARE_SECONDS);
  if (!(seconds > 0)) throw new Error("BENCH_FAIR_SHARE_SECONDS must be a positive number of seconds");
  const ms = seconds * 1000;
  // The production defaults: no RATE_LIMIT_SCALE, no CLERK_API_CALLS_PER_10S; one proxy hop (X-Forwarded-For from loopback).
  const stack = await startStack(servers, {
    instances: 2,
    webhooks: true,
    basePort,
    instanceEnv: { TRUST_PROXY: "1" },
  });
  try {
    const { clerk, instances, bapi } = stack;
    // The attackers' organization (half the others are in it too) and the neighbours'.
    const target = await newOrganization(stack, "Targeted", OTHERS / 2, 1);
    const neighbours = await newOrganization(stack, "Neighbours", OTHERS / 2, 1 + OTHERS / 2);
    const others = [...target.people, ...neighbours.people];
    // The handshake may come back to the instances' origins (Clerk's "allowed origins").
    await bapi("PATCH", "/v1/instance", { allowed_origins: instances });

    // Warm-up (not counted): the others' pages kept, then Clerk's window empty again.
    const warm = othersBrowse(others, instances);
    await sleep(Math.min(ms, 10_000));
    await warm();
    await sleep(QUIET_MS);

    let lastEndpoints = "";
    const callsPerMinute = async (work: () => Promise<void>) => {
      const { used, ms: took, total } = await clerkUse(clerk, work);
      // Per minute, as the allowance counts (any sliding minute): a run shorter than a minute
      // counts as one, since the minute that holds it holds all of its calls.
      const minutes = Math.max(1, took / 60_000);
      lastEndpoints = busiest(used, minutes, "/min");
      return total / minutes;
    };
    let baselineOthers: Statuses = {};
    const baseline = await callsPerMinute(async () => {
      const browsing = othersBrowse(others, instances);
      await sleep(ms);
      baselineOthers = await browsing();
    });

    const attacks: AttackResult[] = [];
    for (const [i, path] of ATTACK_PATHS.entries()) {
      await sleep(QUIET_MS);
      const attacker = await newMember(stack, target.org, `203.0.113.${i + 1}`);
      const refusedBefore = await refusedCalls(clerk);
      let attackerStatuses: Statuses = {};
      let othersStatuses: Statuses = {};
      const during = await callsPerMinute(async () => {
        const browsing = othersBrowse(others, instances);
        attackerStatuses = await flood(ms, ATTACK_CONNECTIONS, instances, (origin) =>
          answer(...path.request(attacker, origin)),
        );
        othersStatuses = await browsing();
      });
      attacks.push({
        path: path.name,
        attacker: attackerStatuses,
        callsPerMinute: during - baseline,
        endpoints: lastEndpoints,
        others: othersStatuses,
        refused: (await refusedCalls(clerk)) - refusedBefore,
      });
    }

    // The handshake floods, each with a real person's handshake returning on each instance once it is under way.
    const real = { ...neighbours.people[0]!, address: "192.0.2.50" };
    // Unbound: made-up nonces with no state of the app's (as a link would carry them), dropped unread.
    await sleep(QUIET_MS);
    const unboundAddress = rotatingAddresses(0);
    const nonces = await handshakeFlood(
      stack,
      ms,
      (origin) =>
        answer(`${origin}/?__clerk_handshake_nonce=hsn_${randomBytes(16).toString("hex")}`, {
          headers: documentHeaders({ cookie: "", address: unboundAddress() }),
        }),
      real,
    );
    // Bound: each made-up nonce returned from a handshake the attacker's own browser started.
    await sleep(QUIET_MS);
    const boundAddress = rotatingAddresses(1);
    const bound = await handshakeFlood(stack, ms, (origin) => madeUpReturn(origin, { address: boundAddress() }), real);
    const anonymousPoolFull = Date.now() + ANONYMOUS_WINDOW_MS;

    // The Sybil crowd on the deferrable paths, while the others sign in, sign out, send forms and view pages.
    await sleep(QUIET_MS);
    const sybil = await sybilRow(stack, ms, target.org, others);

    // A leaked token: a member's own, expired 19 minutes ago, on bound made-up returns from rotating addresses;
    // its owner views pages and comes back through the handshake from their own address meanwhile. It starts
    // once the bound flood's anonymous minute is over, so that the two floods do not share the pool.
    await sleep(Math.max(QUIET_MS, anonymousPoolFull - Date.now()));
    const owner = await newMember(stack, target.org, "192.0.2.60", { staleTokens: false });
    const exp = Math.floor(Date.now() / 1000) - LEAKED_TOKEN_AGE_S;
    const leakedToken = emulatorToken(
      stack.dataDir,
      owner.session,
      { iat: exp - 60, exp },
      { org: { id: target.org.id, slug: target.org.slug, role: "org:member" } },
    );
    const leakedCookie = browserCookies(owner.session, leakedToken, exp - 120);
    const leakedAddress = rotatingAddresses(2);
    const ownerBrowsing = othersBrowse([owner], instances);
    const leakedFlood = await handshakeFlood(
      stack,
      ms,
      (origin) => madeUpReturn(origin, { cookie: leakedCookie, address: leakedAddress() }),
      owner,
    );
    const leaked = { ...leakedFlood, ownerViews: await ownerBrowsing() };

    const answered = [
      ...attacks.flatMap((a) => [a.others, a.attacker]),
      ...[nonces, bound, leaked].map((f) => f.flood),
      leaked.ownerViews,
      ...Object.values(sybil.sybils),
      ...[sybil.alone, sybil.during].flatMap((w) => [w.views, ...Object.values(w.actions)]),
    ];
    if (answered.some((s) => s[500])) printUnexpectedErrors(stack.dataDir);
    return {
      seconds,
      baseline: { callsPerMinute: baseline, others: baselineOthers },
      attacks,
      nonces,
      bound,
      leaked,
      sybil,
    };
  } finally {
    stack.stop();
  }
}

/** The others' views in each attack, judged: every one 200 (docs/security.md, "Who pays"); anything else fails the bench. */
export function fairShareFailureLines({ baseline, attacks }: FairShare): string[] {
  const failures = (views: Statuses) => Object.fromEntries(Object.entries(views).filter(([kind]) => kind !== "200"));
  return [
    judgeFailures("Fair share, the others alone", failures(baseline.others)),
    ...attacks.map((a) => judgeFailures(`Fair share, the others during ${a.path}`, failures(a.others))),
  ];
}

/** How many answers, and which (most first): the failures' tally (failures.ts) serves statuses as well. */
export const all: (statuses: Statuses) => number = failureCount;
export const byStatus: (statuses: Statuses) => string = describeFailures;
export const met = (ok: boolean) => (ok ? "met" : "**missed**");
/** Whether every answer was `success` (and there was at least one). */
export const allWere = (statuses: Statuses, success: string) =>
  all(statuses) > 0 && all(statuses) === (statuses[success] ?? 0);

/** The report: one line per attack path, then the handshake floods, then the Sybil crowd. */
export function fairShareLines({ seconds, baseline, attacks, nonces, bound, leaked, sybil }: FairShare): string[] {
  const othersLine = (others: Statuses) => {
    const failed = notOk(Object.fromEntries(Object.entries(others).filter(([status]) => status !== "200")));
    const unavailable = Object.entries(others)
      .filter(([status]) => status.startsWith("503"))
      .reduce((sum, [, n]) => sum + n, 0);
    return `others' ${all(others).toLocaleString("en")} views: ${byStatus(others)} (target all 200, 0 × 503: ${failed === 0 ? "met" : `missed, ${unavailable} × 503`})`;
  };
  const lines = [
    `| Fair share: one member at ${ATTACK_CONNECTIONS} connections for ${seconds} s, 2 instances, keys mode, default budget | the attacker's requests | Clerk calls the attack caused in a minute (all of them, for an attack under a minute; target ≤ ${CALLS_PER_MINUTE_TARGET}) | Clerk's busiest endpoints during it | the others' views (10 people, a page on each instance every ${OTHERS_EVERY_MS} ms; target all 200) | Clerk's 429s |`,
    "| --- | --- | ---: | --- | --- | ---: |",
    `| (no attacker: the others alone, the baseline) | — | ${baseline.callsPerMinute.toFixed(0)} (the others' own) | — | ${othersLine(baseline.others)} | — |`,
    ...attacks.map(
      (a) =>
        `| ${a.path} | ${all(a.attacker).toLocaleString("en")}: ${byStatus(a.attacker)} | ${a.callsPerMinute.toFixed(0)} (${a.callsPerMinute <= CALLS_PER_MINUTE_TARGET ? "met" : "missed"}) | ${a.endpoints || "none"} | ${othersLine(a.others)} | ${a.refused} |`,
    ),
  ];

  const returns = (handshakes: HandshakeResult[], whose: string) => {
    const completed = handshakes.filter((h) => h.completed).length;
    return `${whose}: completed on ${completed} of ${handshakes.length} instances (${met(completed === handshakes.length)}); ${handshakes.map((h, i) => `${i + 1}: ${h.hops.join(" → ")}`).join("; ")}`;
  };
  // Each real return reads its nonce once; the flood's own reads are the rest.
  const floodRow = (name: string, f: FloodResult, target: string, ok: boolean, real: string) =>
    `| ${name} | ${all(f.flood).toLocaleString("en")}: ${byStatus(f.flood)} | ${f.reads - f.handshakes.length} (${f.calls} calls in all, the ${f.handshakes.length} real returns' included) | ${target}: ${met(ok)} | ${f.refused} (${met(f.refused === 0)}) | ${real} |`;
  const floodReads = (f: FloodResult) => f.reads - f.handshakes.length;
  lines.push(
    "",
    `| Handshake floods: made-up \`__clerk_handshake_nonce\` returns (document GETs) from ${FLOOD_ADDRESSES.toLocaleString("en")} rotating client addresses, ${ATTACK_CONNECTIONS} connections for ${seconds} s, while a real person's handshake returns on each instance | the flood's returns | Clerk's handshake reads the flood caused | target | Clerk's 429s | the real return during it (target: completes on every instance) |`,
    "| --- | --- | ---: | --- | ---: | --- |",
    floodRow(
      "unbound: no state of the app's (as a link carries it), on `/`, no cookies",
      nonces,
      "0 (dropped unread)",
      floodReads(nonces) <= 0,
      returns(nonces.handshakes, "a member's"),
    ),
    floodRow(
      "bound: each returned from a handshake the attacker started (a document GET of `/orgs` with `__client_uat=1`: the app's 307 and state cookie)",
      bound,
      `≤ ${ANONYMOUS_PER_MINUTE} a minute (the anonymous pool)`,
      floodReads(bound) <= ANONYMOUS_PER_MINUTE * Math.max(1, seconds / 60),
      returns(bound.handshakes, "a member's"),
    ),
    floodRow(
      `leaked token: bound, carrying a member's own session token expired ${LEAKED_TOKEN_AGE_S / 60} min ago (the addresses pay, not its owner)`,
      leaked,
      `≤ ${ANONYMOUS_PER_MINUTE} a minute (the anonymous pool)`,
      floodReads(leaked) <= ANONYMOUS_PER_MINUTE * Math.max(1, seconds / 60),
      `${returns(leaked.handshakes, "the token's owner's, from their own address")}; the owner's ${all(leaked.ownerViews)} warm views: ${byStatus(leaked.ownerViews)} (all 200: ${met(allWere(leaked.ownerViews, "200"))})`,
    ),
  );

  // At most DEFERRABLE_PER_WINDOW in any 11 s: in `seconds`, that many per window it overlaps.
  const shareAllows = DEFERRABLE_PER_WINDOW * Math.ceil(seconds / FLEET_WINDOW_S);
  const sybilRequests = Object.values(sybil.sybils).reduce((sum, s) => sum + all(s), 0);
  // A kind a short run never came to (each person's turn is every 8 s) is shown as none, not judged.
  const succeeded = (statuses: Statuses, success: string) =>
    all(statuses) === 0 ? "none in this run" : `${byStatus(statuses)} (${met(allWere(statuses, success))})`;
  lines.push(
    "",
    `Sybils: ${SYBILS} accounts, each a member of the targeted organization (made ${SYBIL_SETUP_BATCH} at a time in ${sybil.setupSeconds.toFixed(0)} s), spending every deferrable path at ${SYBIL_CONNECTIONS} connections in all for ${seconds} s, round-robin over the accounts, both instances and the paths: ${sybilRequests.toLocaleString("en")} requests. Clerk calls they caused: ${sybil.calls.toFixed(0)} in ${seconds} s (${((sybil.calls * 60) / seconds).toFixed(0)} a minute at that pace). Their deferrable calls may be ≤ ${DEFERRABLE_PER_WINDOW} in any ${FLEET_WINDOW_S} s, ≤ ${shareAllows.toLocaleString("en")} in ${seconds} s; the rest are needed reads (each account's first pages' memberships) from each account's own allowance: ${sybil.calls <= shareAllows ? "within the share in all" : "**above the share in all**: see which endpoints"}. ${sybil.duringCalls} in all during it, the others alone ${sybil.alone.calls} in as long. Busiest during: ${sybil.endpoints || "none"}. Clerk's 429s: ${sybil.refused} (target 0: ${met(sybil.refused === 0)}).`,
    "",
    "| The Sybils' requests, by path | answers |",
    "| --- | --- |",
    ...Object.entries(sybil.sybils).map(([path, s]) => `| ${path} | ${all(s).toLocaleString("en")}: ${byStatus(s)} |`),
    "",
    `| The others meanwhile (${OTHERS} people not among the Sybils: a page on each instance every ${OTHERS_EVERY_MS} ms, and an action every ${ACTION_EVERY_MS / 1000} s) | alone, before (as long) | during the Sybils (target: all succeed) |`,
    "| --- | --- | --- |",
    ...(Object.entries(ACTIONS) as [Action, string][]).map(
      ([kind, success]) =>
        `| ${kind} | ${succeeded(sybil.alone.actions[kind], success)} | ${succeeded(sybil.during.actions[kind], success)} |`,
    ),
    `| warm page views | ${succeeded(sybil.alone.views, "200")} | ${succeeded(sybil.during.views, "200")} |`,
  );
  return lines;
}
