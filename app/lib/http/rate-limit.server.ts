import { json, type AppLoadContext } from "@remix-run/node";
import type { Cluster, Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

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
} as const;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

/** Counts uses; `retryAfterSeconds` is set once the limit is passed. */
export type RateLimiter = {
  consume(
    action: RateLimitedAction,
    who: string,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
};

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
    async consume(action, who) {
      try {
        await limiters.get(action)!.consume(who);
        return { allowed: true };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
    },
  };
}

function waitText(seconds: number): string {
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
