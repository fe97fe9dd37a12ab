import { json, type AppLoadContext } from "@remix-run/node";
import type { Cluster, Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

// What the /ingest relay passes on to PostHog in a minute, counted in events and bytes once a batch is read
// (ingest-batch.server.ts), so that a request's size cannot multiply what the request limit allows: one
// address relayed 785,400 events (58.9 MB) in 20 s within 240 requests a minute, and rotating addresses
// 1,023,400 in 10 s. The app's posthog-js sends page views, identify and group calls and at most 10 error
// reports a page, flushed every few seconds: a few events of a few KB a request, tens of events a minute for
// one person clicking through pages fast. The caps per address leave room to spare for a dozen such people
// behind one address, as the request limit does.

/** Per client address: 240 requests (the request limit, a dozen people behind one address) of 5 events each. */
export const INGEST_EVENTS_PER_ADDRESS_PER_MINUTE = 1_200;
/** Per client address: those 1,200 events at 3.5 KB each, or 16 of the largest batches (256 KB). */
export const INGEST_BYTES_PER_ADDRESS_PER_MINUTE = 4 * 1024 * 1024;
/**
 * The whole fleet (in Redis when there is one; per instance while Redis is away): 500 events a second, some
 * 1,500 people browsing at once at 20 a minute, far above this app's traffic. However many addresses a flood
 * comes from, PostHog is sent no more than this (25 addresses at their caps); past it only analytics stop,
 * until the minute ends.
 */
export const INGEST_EVENTS_PER_MINUTE = 30_000;
/** The whole fleet: those 30,000 events at 3.5 KB each, as per address. */
export const INGEST_BYTES_PER_MINUTE = 100 * 1024 * 1024;

/** How often each action may be used, per signed-in person (or per address when signed out). */
export const RATE_LIMITS = {
  theme: { limit: 30, windowMs: 60_000 },
  "sign-out": { limit: 10, windowMs: 60_000 },
  invite: { limit: 20, windowMs: 10 * 60_000 },
  "revoke-invitation": { limit: 20, windowMs: 10 * 60_000 },
  "accept-invitation": { limit: 20, windowMs: 10 * 60_000 },
  "create-organization": { limit: 10, windowMs: 60 * 60_000 },
  // A Clerk call each (a query or a page past the first): a person typing and paging is far below.
  "member-search": { limit: 60, windowMs: 60_000 },
  // The browser's word that Clerk's components changed the active organization: six caches forget it.
  "organization-refresh": { limit: 30, windowMs: 10 * 60_000 },
  // Per client address (clientAddressKey), signed in or not: the /ingest relay's requests. A person sends
  // a batch every few seconds at most while using a page; this leaves room for a dozen behind one address.
  "analytics-relay": { limit: 240, windowMs: 60_000 },
  // What the relay passes on (above), counted per address (clientAddressKey) and for the fleet (one key).
  "analytics-relay-events": { limit: INGEST_EVENTS_PER_ADDRESS_PER_MINUTE, windowMs: 60_000 },
  "analytics-relay-bytes": { limit: INGEST_BYTES_PER_ADDRESS_PER_MINUTE, windowMs: 60_000 },
  "analytics-relay-fleet-events": { limit: INGEST_EVENTS_PER_MINUTE, windowMs: 60_000 },
  "analytics-relay-fleet-bytes": { limit: INGEST_BYTES_PER_MINUTE, windowMs: 60_000 },
  // Handshake returns whose nonce Clerk did not know, per payer (a person, or an address): a real return
  // never misses, so past three a minute a payer's nonces are no longer read (each miss was a Clerk call
  // that signed no one in: a crowd of accounts could spend the needed calls' share with them).
  "handshake-misses": { limit: 3, windowMs: 60_000 },
} as const;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

/** Points to take from one limit's count for `who`: one use, or (the relay's) a batch's events or bytes. */
export type RateLimitCharge = { action: RateLimitedAction; who: string; points: number };

/** Counts uses; `retryAfterSeconds` is set once the limit is passed. */
export type RateLimiter = {
  consume(
    action: RateLimitedAction,
    who: string,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /**
   * Takes every charge or none: when one would pass its limit, what all of them took is given back (the
   * counts hold what was let through), and the answer names the limit whose wait is longest.
   */
  consumeAll(
    charges: readonly RateLimitCharge[],
  ): Promise<{ allowed: true } | { allowed: false; action: RateLimitedAction; retryAfterSeconds: number }>;
  /** Whether `who` has used all of `action` this window, without counting a use. */
  spent(action: RateLimitedAction, who: string): Promise<boolean>;
};

// A refund lands in the window it was taken from or not at all: one landing in the next window would start it
// below zero, credit to spend there.
const REFUND_MARGIN_MS = 1_000;

/**
 * Fixed windows, counted by rate-limiter-flexible: in Redis when a client is
 * given (shared by every instance), else in this process's memory. With Redis,
 * each limit has a memory "insurance" twin that counts while Redis is away, so
 * requests are still served and still limited, per process. `scale`
 * multiplies every limit (`RATE_LIMIT_SCALE`; the test servers raise it).
 */
export function createRateLimiter({
  scale = 1,
  redis,
}: { scale?: number; redis?: Redis | Cluster | null } = {}): RateLimiter {
  const limiters = new Map<RateLimitedAction, RateLimiterAbstract>();
  for (const [action, rule] of Object.entries(RATE_LIMITS) as [
    RateLimitedAction,
    (typeof RATE_LIMITS)[RateLimitedAction],
  ][]) {
    const options = { points: Math.max(1, Math.floor(rule.limit * scale)), duration: rule.windowMs / 1000 };
    limiters.set(
      action,
      redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: redis,
            // Outside the release's key format (server/redis-keys.ts): the counters are the library's,
            // and releases share them, so a limit holds during a rolling deploy.
            keyPrefix: `teamwork:rate:${action}`,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : new RateLimiterMemory(options),
    );
  }
  return {
    async spent(action, who) {
      const limiter = limiters.get(action)!;
      const counted = await limiter.get(who).catch(() => null);
      return counted !== null && counted.consumedPoints >= limiter.points;
    },
    async consume(action, who) {
      try {
        await limiters.get(action)!.consume(who);
        return { allowed: true };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { allowed: false, retryAfterSeconds: retryAfter(rejection) };
      }
    },
    async consumeAll(charges) {
      const started = Date.now();
      const results = await Promise.allSettled(
        charges.map(({ action, who, points }) => limiters.get(action)!.consume(who, points)),
      );
      if (results.every((result) => result.status === "fulfilled")) return { allowed: true };
      // A refusal counted its points too (rate-limiter-flexible adds, then compares); an error may or may not have.
      await Promise.all(
        results.map((result, i) => {
          const counted = result.status === "fulfilled" ? result.value : result.reason;
          if (!(counted instanceof RateLimiterRes)) return;
          if (Date.now() > started + counted.msBeforeNext - REFUND_MARGIN_MS) return;
          const { action, who, points } = charges[i]!;
          return limiters
            .get(action)!
            .reward(who, points)
            .catch(() => undefined);
        }),
      );
      let longest: { action: RateLimitedAction; retryAfterSeconds: number } | null = null;
      for (const [i, result] of results.entries()) {
        if (result.status === "fulfilled") continue;
        if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
        const retryAfterSeconds = retryAfter(result.reason);
        if (!longest || retryAfterSeconds > longest.retryAfterSeconds)
          longest = { action: charges[i]!.action, retryAfterSeconds };
      }
      return { allowed: false, ...longest! };
    },
  };
}

const retryAfter = (refusal: RateLimiterRes) => Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));

/** How long to wait, as a sentence's end says it ("42 seconds", "9 minutes"). */
export function waitText(seconds: number): string {
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** What a person past a limit is told: how long to wait ("42 seconds", "9 minutes"). */
export type RateLimited = { retryAfterSeconds: number; wait: string };

/**
 * Counts one use of `action` for this person (or this address when signed
 * out): null within the limit; past it, how long to wait, already counted in
 * the metrics and set as the response's `Retry-After`, for a route that
 * answers with its own page.
 */
export async function checkRateLimit(
  context: AppLoadContext,
  action: RateLimitedAction,
  userId: string | null,
): Promise<RateLimited | null> {
  const result = await context.rateLimiter.consume(action, userId ? `user:${userId}` : `ip:${context.clientIp}`);
  if (result.allowed) return null;
  context.metrics.rateLimitRefusal(action);
  context.retryAfter.seconds = result.retryAfterSeconds;
  return { retryAfterSeconds: result.retryAfterSeconds, wait: waitText(result.retryAfterSeconds) };
}

/** checkRateLimit, throwing the catalogue's 429, with `Retry-After`, past the limit. */
export async function enforceRateLimit(context: AppLoadContext, action: RateLimitedAction, userId: string | null) {
  const limited = await checkRateLimit(context, action, userId);
  if (!limited) return;
  throw json(
    { message: `You have done that many times in a short while. Please wait ${limited.wait} and try again.` },
    { status: 429, headers: { "Retry-After": String(limited.retryAfterSeconds) } },
  );
}
