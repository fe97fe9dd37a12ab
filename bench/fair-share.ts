/**
 * Fair share (issue 54): can one person, or one flood of client addresses,
 * spend Clerk's budget so that someone else's page fails? Two instances in
 * keys mode (a pk_live_ key: the fleet's default budget, 900 calls per 10 s),
 * one redis-server, Clerk's webhooks on, production rate limits. For each
 * attack path in turn, ONE member at 16 connections while 10 other people each
 * view a page on each instance every 500 ms: the attacker's answers, the Clerk
 * calls the attack caused per minute (target ≤ 60) and the others' answers
 * (target: all 200). Then 1,000 client addresses send made-up handshake
 * nonces while a real person's handshake returns on each instance.
 *
 * The attacker's calls: Clerk's calls during the attack less what the others
 * cost alone, measured first for as long with no attacker (their rate of
 * calls, warm caches, webhooks on). Whatever the attack makes the others'
 * pages cost on top (caches it empties) is the attacker's doing, and counted.
 */
import { randomBytes } from "node:crypto";
import { emulatorCalls, newPerson } from "../tests/support/emulator-api";
import { browserCookies, emulatorSession, emulatorToken } from "../tests/support/session";
import { realHandshake, type HandshakeResult } from "./handshake";
import { backendCalls } from "./servers";
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
/**
 * Between attacks: Clerk's window (10 s) and the fleet budget's (11 s) are
 * empty again, so each attack starts on a full budget. Each attack is made
 * by a member of its own, so no person's allowance carries over either.
 */
const QUIET_MS = 11_000;
/** The attacker re-sends their own tokens, expired up to 10 minutes ago (one a minute, as clerk-js got them). */
const STALE_TOKEN_AGES_S = Array.from({ length: 10 }, (_, i) => 30 + i * 55);

type Person = { cookie: string; address: string; orgSlug: string };
type Attacker = Person & { orgId: string; staleCookies: string[] };
type AttackPath = { name: string; request(attacker: Attacker, origin: string): [string, RequestInit] };

const documentHeaders = (person: Person, extra: Record<string, string> = {}) => ({
  Cookie: person.cookie,
  Accept: "text/html",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-Mode": "navigate",
  "X-Forwarded-For": person.address,
  ...extra,
});
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;

/** The paths of issue 54's attack, each with a token the person really had (their own organization's id for `?left=`). */
const ATTACK_PATHS: AttackPath[] = [
  {
    name: "GET /resources/organizations?left=<own org>",
    request: (a, origin) => [
      `${origin}/resources/organizations?left=${a.orgId}`,
      { headers: { Cookie: a.cookie, Accept: "application/json", "X-Forwarded-For": a.address } },
    ],
  },
  {
    name: "GET /orgs?left=<own org>",
    request: (a, origin) => [`${origin}/orgs?left=${a.orgId}`, { headers: documentHeaders(a) }],
  },
  {
    name: "POST /resources/theme, own token expired ≤ 10 min ago",
    request: (a, origin) => [
      `${origin}/resources/theme`,
      {
        method: "POST",
        headers: documentHeaders(
          { ...a, cookie: pick(a.staleCookies) },
          { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
        ),
        body: new URLSearchParams({ theme: pick(["light", "dark", "system"]), redirectTo: "/orgs" }).toString(),
      },
    ],
  },
  {
    name: "GET /orgs/:slug/members?q=<random>",
    request: (a, origin) => [
      `${origin}/orgs/${a.orgSlug}/members?q=${randomBytes(4).toString("hex")}`,
      { headers: documentHeaders(a) },
    ],
  },
  {
    name: "GET /orgs/:slug.data (the org home's data)",
    request: (a, origin) => [
      `${origin}/orgs/${a.orgSlug}.data`,
      { headers: { Cookie: a.cookie, "X-Forwarded-For": a.address } },
    ],
  },
];

/** A request's answer, read to the end, counted by status (and whether a 429/503 said when to come back). */
async function send(url: string, init: RequestInit, statuses: Statuses) {
  try {
    const res = await fetch(url, { ...init, redirect: "manual" });
    await res.arrayBuffer();
    const unannounced = (res.status === 429 || res.status === 503) && !res.headers.get("retry-after");
    countStatus(statuses, unannounced ? `${res.status} without Retry-After` : res.status);
  } catch {
    countStatus(statuses, "no answer");
  }
}

/** The 10 others, each viewing one of their pages on each instance every 500 ms, until `stop()`; all their answers, by status. */
function othersBrowse(others: Person[], instances: string[]) {
  const statuses: Statuses = {};
  let running = true;
  const loops = others.map(async (person, i) => {
    const pages = [`/orgs/${person.orgSlug}`, "/orgs", "/resources/organizations"];
    await new Promise((r) => setTimeout(r, (i * OTHERS_EVERY_MS) / others.length));
    for (let turn = 0; running; turn++) {
      const started = Date.now();
      await Promise.all(
        instances.map((origin) =>
          send(origin + pages[turn % pages.length], { headers: documentHeaders(person) }, statuses),
        ),
      );
      await new Promise((r) => setTimeout(r, Math.max(0, OTHERS_EVERY_MS - (Date.now() - started))));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return statuses;
  };
}

/** `connections` loops sending `request()` for `ms`, alternating instances; the answers by status. */
async function flood(
  ms: number,
  connections: number,
  instances: string[],
  request: (origin: string) => [string, RequestInit],
) {
  const statuses: Statuses = {};
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let turn = c; Date.now() < until; turn++)
        await send(...request(instances[turn % instances.length]!), statuses);
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
export type FloodResult = { flood: Statuses; handshakes: HandshakeResult[]; calls: number; refused: number };
export type FairShare = {
  seconds: number;
  baseline: { callsPerMinute: number; others: Statuses };
  attacks: AttackResult[];
  nonces: FloodResult;
};

/** Backend API calls per endpoint between two readings of the stand-in's counters, most first. */
function backendUse(before: Record<string, number>, after: Record<string, number>): [string, number][] {
  return Object.entries(after)
    .filter(([endpoint]) => endpoint.startsWith("bapi "))
    .map(([endpoint, n]): [string, number] => [endpoint, n - (before[endpoint] ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A member of `org` (a new person), signed in with it active, with the tokens they had in the last 10 minutes. */
async function newMember(stack: Stack, org: { id: string; slug: string }, address: string): Promise<Attacker> {
  const person = await newPerson(stack.bapi, "attacker");
  await stack.bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: person.id, role: "org:member" });
  const session = await emulatorSession(stack.clerk, person.email, org.id);
  const now = Math.floor(Date.now() / 1000);
  const staleCookies = STALE_TOKEN_AGES_S.map((age) => {
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
  return { cookie, address, orgSlug: org.slug, orgId: org.id, staleCookies };
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
  const people: (Person & { email: string })[] = [];
  for (const [i, person] of team.entries()) {
    const session = await emulatorSession(stack.clerk, person.email, org.id);
    const cookie = session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
    people.push({ cookie, email: person.email, address: `198.51.100.${firstAddress + i}`, orgSlug: org.slug });
  }
  return { org, people };
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
      const before = await emulatorCalls(clerk);
      const started = Date.now();
      await work();
      // Per minute, as the allowance counts (any sliding minute): a run shorter than a minute
      // counts as one, since the minute that holds it holds all of its calls.
      const minutes = Math.max(1, (Date.now() - started) / 60_000);
      const used = backendUse(before, await emulatorCalls(clerk));
      lastEndpoints = used
        .slice(0, 3)
        .map(([endpoint, n]) => `${endpoint.slice("bapi ".length)} ${(n / minutes).toFixed(0)}/min`)
        .join(", ");
      return used.reduce((sum, [, n]) => sum + n, 0) / minutes;
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
        attackerStatuses = await flood(ms, ATTACK_CONNECTIONS, instances, (origin) => path.request(attacker, origin));
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

    // The nonce flood, with a real person's handshake returning on each instance once it is under way.
    await sleep(QUIET_MS);
    const [callsBefore, refusedBefore] = [await backendCalls(clerk), await refusedCalls(clerk)];
    const real = neighbours.people[0]!;
    let address = 0;
    const flooding = flood(ms, ATTACK_CONNECTIONS, instances, (origin) => {
      const client = (address = (address + 1) % FLOOD_ADDRESSES);
      return [
        `${origin}/?__clerk_handshake_nonce=hsn_${randomBytes(16).toString("hex")}`,
        { headers: documentHeaders({ ...real, cookie: "", address: `10.0.${client >> 8}.${client & 255}` }) },
      ];
    });
    await sleep(Math.min(ms / 3, 5_000));
    const handshakes: HandshakeResult[] = [];
    for (const origin of instances)
      handshakes.push(
        await realHandshake(clerk, stack.dataDir, origin, {
          email: real.email,
          orgId: neighbours.org.id,
          address: "192.0.2.50",
        }),
      );
    const floodStatuses = await flooding;
    const nonces = {
      flood: floodStatuses,
      handshakes,
      calls: (await backendCalls(clerk)) - callsBefore,
      refused: (await refusedCalls(clerk)) - refusedBefore,
    };
    if ([...attacks.map((a) => a.others), ...attacks.map((a) => a.attacker), floodStatuses].some((s) => s[500]))
      printUnexpectedErrors(stack.dataDir);
    return { seconds, baseline: { callsPerMinute: baseline, others: baselineOthers }, attacks, nonces };
  } finally {
    stack.stop();
  }
}

const all = (statuses: Statuses) => Object.values(statuses).reduce((sum, n) => sum + n, 0);
const byStatus = (statuses: Statuses) =>
  Object.entries(statuses)
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${n.toLocaleString("en")} × ${status}`)
    .join(", ");

/** The report: one line per attack path, then the nonce flood. */
export function fairShareLines({ seconds, baseline, attacks, nonces }: FairShare): string[] {
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
  const completed = nonces.handshakes.filter((h) => h.completed).length;
  lines.push(
    "",
    `Nonce flood: ${FLOOD_ADDRESSES.toLocaleString("en")} client addresses, ${ATTACK_CONNECTIONS} connections for ${seconds} s, made-up __clerk_handshake_nonce values on document GETs: ${all(nonces.flood).toLocaleString("en")} requests, ${byStatus(nonces.flood)}; ${nonces.calls} Clerk calls, ${nonces.refused} refused (429).`,
    `A real person's handshake return during the flood: completed on ${completed} of ${nonces.handshakes.length} instances (target: every instance: ${completed === nonces.handshakes.length ? "met" : "missed"}); ${nonces.handshakes.map((h, i) => `instance ${i + 1}: ${h.hops.join(" → ")}`).join("; ")}.`,
  );
  return lines;
}
