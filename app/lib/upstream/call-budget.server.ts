import { logEvent } from "../log.server";

/**
 * The fleet's budget of Clerk Backend API calls. Clerk allows an application
 * 1,000 calls per 10 s in production (100 for a development instance),
 * counted over a sliding window and shared by every instance: past it Clerk
 * answers 429 to everyone. A cold fleet (a deploy with Redis emptied) needs
 * about one read per person and organization, so enough people at once could
 * spend it. Each attempt (a retry is a call too) first takes one call from
 * this budget; past it the page gets the catalogue's 503 with `Retry-After`
 * (when the oldest call leaves the window) and Clerk is not asked.
 */
export type CallBudget = {
  /**
   * Takes one call for an attempt at `upstream`: 0, or (none left, nothing
   * taken) the ms until one is free. A number, not an error: server.ts's
   * bundle and the app's each hold a copy of the error classes, so the
   * app's code throws (request-scope.server's `overBudget`).
   */
  take(upstream: string): Promise<number>;
};

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

/** A sliding window of calls: `take(now)` counts one and answers 0, or the ms until one is free (counting nothing). */
export type CallWindow = { take(now: number): number };

/** A window: the time of every call in the last `windowMs` (at most `limit` of them), in this process. */
export function memoryWindow(limit: number, windowMs: number): CallWindow {
  const times: number[] = [];
  return {
    take(now) {
      while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
      if (times.length >= limit) return Math.max(1, times[0]! + windowMs - now);
      times.push(now);
      return 0;
    },
  };
}

/** The same window kept for every instance (in Redis: server/clerk-call-budget.ts); it rejects when it cannot answer. */
export type SharedCallWindow = { take(now: number): Promise<number> };

export type CallBudgetOptions = {
  limit: number;
  windowMs?: number;
  /** The fleet's window; without one (no Redis), this process's is the budget. */
  shared?: SharedCallWindow | null;
  /** How long to wait on the shared window before counting in this process instead (Redis hung, not just busy). */
  sharedTimeoutMs?: number;
  now?: () => number;
};

/**
 * The budget: the fleet's window when there is one, this process's while it
 * is away or slow (counted per process then: how many instances share
 * Clerk's limit cannot be known here, so each may spend the whole budget;
 * said once in the log). Once spent, nothing is asked of the shared window
 * until a call can be free again: a window frees a call only when its oldest
 * leaves it, so a page of several reads, or many pages at once, cost one
 * answer, not one Redis round trip each, and no retry storm.
 */
export function createCallBudget({
  limit,
  windowMs = BUDGET_WINDOW_MS,
  shared = null,
  sharedTimeoutMs = 1_000,
  now = Date.now,
}: CallBudgetOptions): CallBudget {
  const local = memoryWindow(limit, windowMs);
  let spentUntil = 0;
  let sharedAway = false;

  const fromShared = async (at: number): Promise<number> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const wait = await Promise.race([
        shared!.take(at),
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
      if (wait === 0) local.take(at);
      return wait;
    } catch (error) {
      if (!sharedAway) {
        sharedAway = true;
        logEvent("warning", {
          component: "clerk-budget",
          message: `Clerk's call budget cannot be read from Redis (${error instanceof Error ? error.message : String(error)}): counted per process until it is back, so ${limit} calls per ${windowMs / 1000} s per instance, not for the fleet.`,
        });
      }
      return local.take(at);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async take(upstream) {
      if (!countsAgainstClerk(upstream)) return 0;
      const at = now();
      if (spentUntil > at) return spentUntil - at;
      const wait = shared ? await fromShared(at) : local.take(at);
      if (wait > 0) {
        spentUntil = at + wait;
        logEvent("upstream_budget", { upstream, limit, seconds: Math.ceil(wait / 1000) });
      }
      return wait;
    },
  };
}

/** No budget (local mode): every attempt may go. */
export const UNLIMITED: CallBudget = { take: async () => 0 };
