import { logEvent } from "../log.server";
import { payerKey, type Payer } from "./payer.server";

/**
 * The fleet's budget of Clerk Backend API calls, and each payer's share of
 * it. Clerk allows an application 1,000 calls per 10 s in production (100
 * for a development instance), counted over a sliding window and shared by
 * every instance: past it Clerk answers 429 to everyone. So the fleet counts
 * its own calls (the budget), and every call is first charged to whoever
 * caused it (payer.server): a person, a client address, or Clerk's webhooks,
 * each with a small allowance per minute (`allowancesFor`), so that no one
 * can spend the budget for everyone else. A call is refused, not made, when
 * its payer's allowance is spent (their own 429, `by: "allowance"`) or the
 * fleet's budget is (the catalogue's 503, `by: "fleet"`), with the ms until
 * a call is free again.
 */
export type CallBudget = {
  /**
   * Takes one call for an attempt at `upstream`, charged to `payer`: null,
   * or (nothing taken) the refusal. A value, not an error: server.ts's
   * bundle and the app's each hold a copy of the error classes, so the
   * app's code throws (request-scope.server's `overBudget`).
   */
  take(upstream: string, payer: Payer, priority?: Priority): Promise<Refusal | null>;
};

/**
 * What a call is for. `needed`: what decides whether a page may be shown or
 * what a person asked for happens (a handshake return bound to its browser,
 * a sign-out, a write, the membership read that authorizes a page, a stale
 * token's confirmation, a webhook's read). `deferrable`: what only displays
 * or refreshes (directory pages and searches, pending invitations,
 * organizations' names, a person's invitations, `?left=` re-reads): these
 * go only while the fleet's window holds less than DEFERRABLE_SHARE of its
 * budget, so needed calls always have the rest, whatever crowd spends its
 * allowances on displays (as Stripe's load shedder keeps capacity for
 * critical requests).
 */
export type Priority = "needed" | "deferrable";

/** How full the fleet's window may be (of its budget) for a deferrable call to go. */
export const DEFERRABLE_SHARE = 0.6;

/** `deferrable`: the fleet's window was too full for a deferrable call (for the others, a 503 as the fleet's). */
export type Refusal = { waitMs: number; by: "allowance" | "deferrable" | "fleet" };

/** Clerk's Backend API limit per window for the instance a publishable key belongs to (Clerk's "System limits"). */
export const CLERK_LIMIT = { production: 1_000, development: 100, windowMs: 10_000 };

/**
 * The share of Clerk's limit the fleet allows itself. The rest covers what
 * the count cannot see: a call counted here reaches Clerk a little later (and
 * Clerk's window is its own), instances' clocks differ by milliseconds, and
 * Clerk's dashboard and scripts use the same limit.
 */
export const BUDGET_SHARE = 0.9;

/**
 * How much later than its count a call may reach Clerk (the event loop's lag,
 * the network) with the budget still holding: the budget's window is Clerk's
 * 10 s and this, so any 10 s of Clerk's sees at most the calls counted in 11
 * s, the budget, as long as each arrives within a second of being counted
 * (beyond that, BUDGET_SHARE's margin). It costs a cold start 10% of its pace.
 */
export const ARRIVAL_ALLOWANCE_MS = 1_000;

/** The window the budget counts in. */
export const BUDGET_WINDOW_MS = CLERK_LIMIT.windowMs + ARRIVAL_ALLOWANCE_MS;

/**
 * Calls per 10 s for this deployment: `CLERK_API_CALLS_PER_10S` when set,
 * else 90% of Clerk's limit for the key's kind (pk_live_ or pk_test_); none
 * (null: no budget) in local mode, whose emulator sets no limits unless told.
 */
export function clerkCallsPer10s(env: {
  CLERK_PUBLISHABLE_KEY: string;
  CLERK_LOCAL_EMULATOR?: string;
  CLERK_API_CALLS_PER_10S?: number;
}): number | null {
  if (env.CLERK_API_CALLS_PER_10S !== undefined) return env.CLERK_API_CALLS_PER_10S;
  if (env.CLERK_LOCAL_EMULATOR === "1") return null;
  const limit = env.CLERK_PUBLISHABLE_KEY.startsWith("pk_live_") ? CLERK_LIMIT.production : CLERK_LIMIT.development;
  return Math.floor(limit * BUDGET_SHARE);
}

/**
 * Whether an attempt at `upstream` counts against Clerk's limit: every Backend
 * API call but the JWKS, which Clerk does not limit (and which session checks
 * need even when the budget is spent).
 */
export const countsAgainstClerk = (upstream: string) =>
  upstream.startsWith("clerk.") && upstream !== "clerk.jwks.getJwks";

/** How long each payer's allowance counts over: a minute, so that a page's burst of reads fits, and a flood does not. */
export const ALLOWANCE_WINDOW_MS = 60_000;

/**
 * Calls per ALLOWANCE_WINDOW_MS: for each person (by user id) and each client
 * address (anonymous work: a handshake nonce with no session of Clerk's
 * beside it), and for two pools, anonymous work as a whole and Clerk's
 * webhooks. An address's call draws from its own allowance and the
 * anonymous pool.
 */
export type Allowances = { person: number; address: number; anonymous: number; webhooks: number };

const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));

/**
 * Each payer's share of a budget of `callsPer10s`. In production (900 per
 * 10 s, 5,400 a minute): a person 60 a minute (1.1%: a cold page costs 2–4,
 * a warm one none), an address 5 (0.1%: a handshake costs one), anonymous
 * work as a whole and the webhooks 540 each (10%). So it takes 90 people
 * at their limit at once, not one, to spend the fleet's budget. Smaller
 * budgets (a development instance's 90) keep a floor a person can work
 * with: 20 a minute.
 */
export function allowancesFor(callsPer10s: number): Allowances {
  const perWindow = callsPer10s * (ALLOWANCE_WINDOW_MS / CLERK_LIMIT.windowMs);
  return {
    person: clamp(Math.floor(perWindow / 90), 20, 60),
    address: clamp(Math.floor(perWindow / 1_000), 5, 20),
    anonymous: Math.max(10, Math.floor(perWindow / 10)),
    webhooks: Math.max(10, Math.floor(perWindow / 10)),
  };
}

/**
 * What one attempt is charged to: the payer's window (its name and limit), a
 * pool it also draws from (over the allowances' minute), and, for a
 * deferrable call, how full the fleet's window may be for it to go.
 */
export type Charge = {
  payer: string;
  limit: number;
  pool: { name: string; limit: number } | null;
  deferrable: { limit: number } | null;
};

export function chargeFor(payer: Payer, allowances: Allowances, deferrable: { limit: number } | null = null): Charge {
  switch (payer.kind) {
    case "person":
      return { payer: payerKey(payer), limit: allowances.person, pool: null, deferrable };
    case "address":
      return {
        payer: payerKey(payer),
        limit: allowances.address,
        pool: { name: "anonymous", limit: allowances.anonymous },
        deferrable,
      };
    case "webhooks":
      return { payer: payerKey(payer), limit: allowances.webhooks, pool: null, deferrable };
  }
}

/** A sliding window of calls: `take(now)` counts one and answers 0, or the ms until one is free (counting nothing). */
export type CallWindow = {
  take(now: number): number;
  /**
   * 0 when a call may be counted now, else the ms until one is free; counts
   * nothing. With `below`, a call may be counted only while the window holds
   * fewer than `below` calls (a deferrable call's share of the fleet's).
   */
  wait(now: number, below?: number): number;
  /** Counts one call at `now`, room or not. */
  add(now: number): void;
};

/** A window: the time of every call in the last `windowMs` (at most `limit` of them), in this process. */
export function memoryWindow(limit: number, windowMs: number): CallWindow {
  const times: number[] = [];
  const window: CallWindow = {
    wait(now, below = limit) {
      while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
      // Room once the `below`-th newest call has left.
      return times.length >= below ? Math.max(1, times[times.length - below]! + windowMs - now) : 0;
    },
    add(now) {
      times.push(now);
      if (times.length > limit) times.shift();
    },
    take(now) {
      const wait = window.wait(now);
      if (wait === 0) window.add(now);
      return wait;
    },
  };
  return window;
}

/**
 * The same windows kept for every instance (in Redis: app/lib/upstream/redis-call-window.server.ts):
 * the charge's windows and the fleet's checked and counted together, all
 * or none. Rejects when it cannot answer.
 */
export type SharedCallWindow = { take(now: number, charge: Charge): Promise<Refusal | null> };

/** The payers this process remembers windows for at once; past it, the longest unused goes (its count starts again). */
const MAX_PAYERS = 10_000;

/**
 * Each payer's window and each pool's, in this process: the count when
 * there is no Redis, and while it is away; and the allowances already spent,
 * so that a payer past theirs is refused without a round trip to Redis.
 */
function localCharges(now: () => number) {
  const windows = new Map<string, CallWindow>();
  const spentUntil = new Map<string, number>();
  const windowOf = (name: string, limit: number) => {
    let window = windows.get(name);
    if (window) windows.delete(name);
    else window = memoryWindow(limit, ALLOWANCE_WINDOW_MS);
    // Maps keep insertion order: re-inserted, the first is the longest unused.
    windows.set(name, window);
    if (windows.size > MAX_PAYERS) windows.delete(windows.keys().next().value as string);
    return window;
  };
  return {
    /** The ms this charge's payer must still wait, known here without asking anyone. */
    known(charge: Charge): number {
      const until = spentUntil.get(charge.payer) ?? 0;
      const at = now();
      if (until > at) return until - at;
      spentUntil.delete(charge.payer);
      return 0;
    },
    spent(charge: Charge, waitMs: number) {
      if (spentUntil.size >= MAX_PAYERS) spentUntil.delete(spentUntil.keys().next().value as string);
      spentUntil.set(charge.payer, now() + waitMs);
    },
    /** The charge's windows: the payer's own, and its pool's. */
    windows(charge: Charge): CallWindow[] {
      const own = windowOf(charge.payer, charge.limit);
      return charge.pool ? [own, windowOf(`pool:${charge.pool.name}`, charge.pool.limit)] : [own];
    },
  };
}

export type CallBudgetOptions = {
  limit: number;
  windowMs?: number;
  /** Each payer's share (allowancesFor(limit) unless given). */
  allowances?: Allowances;
  /** The fleet's windows; without them (no Redis), this process's are the budget. */
  shared?: SharedCallWindow | null;
  /** How long to wait on the shared window before counting in this process instead (Redis hung, not just busy). */
  sharedTimeoutMs?: number;
  now?: () => number;
};

/**
 * The budget: the fleet's windows when there are, this process's while they
 * are away or slow (counted per process then: how many instances share
 * Clerk's limit cannot be known here, so each may spend the whole budget;
 * said once in the log). Once the fleet's budget, or a payer's allowance, is
 * spent, nothing is asked of the shared window for it until a call can be
 * free again: a window frees a call only when its oldest leaves it, so a
 * page of several reads, or a flood of requests, cost one answer, not one
 * Redis round trip each, and no retry storm.
 */
export function createCallBudget({
  limit,
  windowMs = BUDGET_WINDOW_MS,
  allowances = allowancesFor(limit),
  shared = null,
  sharedTimeoutMs = 1_000,
  now = Date.now,
}: CallBudgetOptions): CallBudget {
  const fleet = memoryWindow(limit, windowMs);
  const deferrableLimit = Math.max(1, Math.floor(limit * DEFERRABLE_SHARE));
  const charges = localCharges(now);
  let fleetSpentUntil = 0;
  let deferrableSpentUntil = 0;
  let sharedAway = false;

  /** This process's count: the charge's windows and the fleet's, all or none. */
  const fromLocal = (at: number, charge: Charge): Refusal | null => {
    const own = charges.windows(charge);
    const allowanceWait = Math.max(0, ...own.map((window) => window.wait(at)));
    if (allowanceWait > 0) return { waitMs: allowanceWait, by: "allowance" };
    const deferrableWait = charge.deferrable ? fleet.wait(at, charge.deferrable.limit) : 0;
    if (deferrableWait > 0) return { waitMs: deferrableWait, by: "deferrable" };
    const fleetWait = fleet.wait(at);
    if (fleetWait > 0) return { waitMs: fleetWait, by: "fleet" };
    for (const window of [...own, fleet]) window.add(at);
    return null;
  };

  const fromShared = async (at: number, charge: Charge): Promise<Refusal | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const refusal = await Promise.race([
        shared!.take(at, charge),
        new Promise<never>((_, reject) => {
          // Decided after the event loop's next look at its sockets: on a busy instance the timer
          // and Redis's answer can be due together, and the answer must win then.
          timer = setTimeout(
            () => setImmediate(() => reject(new Error(`no answer within ${sharedTimeoutMs} ms`))),
            sharedTimeoutMs,
          );
        }),
      ]);
      if (sharedAway) {
        sharedAway = false;
        logEvent("info", {
          component: "clerk-budget",
          message: "Redis is back: Clerk's call budget is the fleet's again.",
        });
      }
      // This process's own calls, in case Redis goes away: it then counts from them.
      if (refusal === null) for (const window of [...charges.windows(charge), fleet]) window.add(at);
      return refusal;
    } catch (error) {
      if (!sharedAway) {
        sharedAway = true;
        logEvent("warning", {
          component: "clerk-budget",
          message: `Clerk's call budget cannot be read from Redis (${error instanceof Error ? error.message : String(error)}): counted per process until it is back, so ${limit} calls per ${windowMs / 1000} s per instance, not for the fleet.`,
        });
      }
      return fromLocal(at, charge);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async take(upstream, payer, priority = "needed") {
      if (!countsAgainstClerk(upstream)) return null;
      const at = now();
      const charge = chargeFor(payer, allowances, priority === "deferrable" ? { limit: deferrableLimit } : null);
      const known = charges.known(charge);
      if (known > 0) return { waitMs: known, by: "allowance" };
      if (fleetSpentUntil > at) return { waitMs: fleetSpentUntil - at, by: "fleet" };
      if (charge.deferrable && deferrableSpentUntil > at)
        return { waitMs: deferrableSpentUntil - at, by: "deferrable" };
      const refusal = shared ? await fromShared(at, charge) : fromLocal(at, charge);
      if (refusal?.by === "fleet") fleetSpentUntil = at + refusal.waitMs;
      if (refusal?.by === "deferrable") deferrableSpentUntil = at + refusal.waitMs;
      if (refusal?.by === "allowance") charges.spent(charge, refusal.waitMs);
      if (refusal) {
        logEvent(refusal.by === "allowance" ? "upstream_allowance" : "upstream_budget", {
          upstream,
          ...(refusal.by === "allowance"
            ? { payer: payer.kind, limit: charge.limit }
            : { limit: refusal.by === "fleet" ? limit : deferrableLimit, share: refusal.by }),
          seconds: Math.ceil(refusal.waitMs / 1000),
        });
      }
      return refusal;
    },
  };
}

/** No budget (local mode): every attempt may go. */
export const UNLIMITED: CallBudget = { take: async () => null };
