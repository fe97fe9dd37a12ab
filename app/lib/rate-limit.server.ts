import { json } from "@remix-run/node";
import { getEnv } from "./env.server";

/** How often each action may be used, per signed-in person (or per address when signed out). */
export const RATE_LIMITS = {
  theme: { limit: 30, windowMs: 60_000 },
  "sign-out": { limit: 10, windowMs: 60_000 },
  invite: { limit: 20, windowMs: 10 * 60_000 },
  "create-organization": { limit: 10, windowMs: 60 * 60_000 },
} as const;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

const windows = new Map<string, { resetAt: number; count: number }>();
// Retry-After for the document or data response that carries the 429, by request id.
const retryAfterByRequest = new Map<string, number>();

function prune(now: number) {
  if (windows.size < 10_000) return;
  for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
}

/**
 * Counts one use of `action` (fixed windows, in memory: one process) and
 * throws a 429 with `Retry-After` once the limit is reached.
 * `RATE_LIMIT_SCALE` multiplies every limit (tests raise it).
 */
export function enforceRateLimit(
  request: Request,
  action: RateLimitedAction,
  who: { userId: string | null; clientIp: string },
  now = Date.now(),
): void {
  const rule = RATE_LIMITS[action];
  const limit = Math.max(1, Math.floor(rule.limit * getEnv().RATE_LIMIT_SCALE));
  const key = `${action}|${who.userId ? `user:${who.userId}` : `ip:${who.clientIp}`}`;
  prune(now);
  let window = windows.get(key);
  if (!window || window.resetAt <= now) {
    window = { resetAt: now + rule.windowMs, count: 0 };
    windows.set(key, window);
  }
  window.count += 1;
  if (window.count <= limit) return;
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  const requestId = request.headers.get("x-request-id");
  if (requestId) retryAfterByRequest.set(requestId, retryAfter);
  throw json(
    {
      message: `You have done that many times in a short while. Please wait ${retryAfter < 120 ? `${retryAfter} seconds` : `${Math.ceil(retryAfter / 60)} minutes`} and try again.`,
    },
    { status: 429, headers: { "Retry-After": String(retryAfter) } },
  );
}

/** The Retry-After of a rate-limited request (read once, by entry.server). */
export function takeRetryAfter(request: Request): number | undefined {
  const requestId = request.headers.get("x-request-id");
  if (!requestId) return undefined;
  const value = retryAfterByRequest.get(requestId);
  retryAfterByRequest.delete(requestId);
  return value;
}
