import { json, type AppLoadContext } from "@remix-run/node";

/** How often each action may be used, per signed-in person (or per address when signed out). */
export const RATE_LIMITS = {
  theme: { limit: 30, windowMs: 60_000 },
  "sign-out": { limit: 10, windowMs: 60_000 },
  invite: { limit: 20, windowMs: 10 * 60_000 },
  "create-organization": { limit: 10, windowMs: 60 * 60_000 },
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
 * Fixed windows counted in this process's memory. `scale` multiplies every
 * limit (`RATE_LIMIT_SCALE`; the test servers raise it).
 */
export function createMemoryRateLimiter({ scale = 1, now = Date.now, maxKeys = 10_000 } = {}): RateLimiter {
  const windows = new Map<string, { resetAt: number; count: number }>();
  return {
    async consume(action, who) {
      const rule = RATE_LIMITS[action];
      const at = now();
      if (windows.size >= maxKeys) {
        for (const [key, window] of windows) if (window.resetAt <= at) windows.delete(key);
      }
      const key = `${action}|${who}`;
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { resetAt: at + rule.windowMs, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count <= Math.max(1, Math.floor(rule.limit * scale))) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - at) / 1000)) };
    },
  };
}

function waitText(seconds: number): string {
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/**
 * Counts one use of `action` for this person (or this address when signed
 * out) and throws the catalogue's 429, with `Retry-After`, past the limit.
 */
export async function enforceRateLimit(context: AppLoadContext, action: RateLimitedAction, userId: string | null) {
  const result = await context.rateLimiter.consume(action, userId ? `user:${userId}` : `ip:${context.clientIp}`);
  if (result.allowed) return;
  context.retryAfter.seconds = result.retryAfterSeconds;
  throw json(
    {
      message: `You have done that many times in a short while. Please wait ${waitText(result.retryAfterSeconds)} and try again.`,
    },
    { status: 429, headers: { "Retry-After": String(result.retryAfterSeconds) } },
  );
}
