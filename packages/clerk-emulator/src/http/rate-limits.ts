import type { Request, RequestHandler } from "express";
import { ApiError } from "../domain/errors";
import { effectiveMethod, sendJson } from "./routing";

/**
 * Clerk's documented rate limits ("System limits", clerk.com/docs/guides/how-clerk-works/system-limits):
 * the Backend API allows an application instance 1,000 requests per 10 s in
 * production and 100 in development (the JWKS is not limited), a few
 * endpoints have hourly limits of their own, and the Frontend API limits
 * sign-in and sign-up attempts per client IP. Over a limit, Clerk answers 429
 * with `Retry-After` (seconds until the block ends) and its error envelope.
 *
 * `off` (the default in local mode) changes nothing; `production` and
 * `development` pick the Backend API's instance-wide limit.
 */
export type RateLimitMode = "production" | "development" | "off";

export const RATE_LIMIT_MODES: readonly RateLimitMode[] = ["production", "development", "off"];

type Rule = {
  name: string;
  method: string;
  path: RegExp;
  limit: number;
  windowMs: number;
  /** Counted per object, the one the path's captured ids name, rather than for the whole endpoint. */
  perObject?: boolean;
};

const SECOND = 1_000;
const HOUR = 3_600_000;
const ID = "[^/]+";

/**
 * Per-endpoint Backend API limits, checked before the instance-wide one (both count the call).
 * The 50 per hour for bulk organization invitations is as Clerk's reference states it; the
 * other hourly numbers are the system-limits page's as last read, not re-checked (GUIDE.md).
 */
export const BACKEND_ENDPOINT_RULES: readonly Rule[] = [
  { name: "Create invitations", method: "POST", path: /^\/v1\/invitations\/?$/, limit: 100, windowMs: HOUR },
  { name: "Create bulk invitations", method: "POST", path: /^\/v1\/invitations\/bulk\/?$/, limit: 25, windowMs: HOUR },
  {
    name: "Create organization invitations",
    method: "POST",
    path: new RegExp(`^/v1/organizations/${ID}/invitations/?$`),
    limit: 250,
    windowMs: HOUR,
  },
  {
    name: "Create bulk organization invitations",
    method: "POST",
    path: new RegExp(`^/v1/organizations/${ID}/invitations/bulk/?$`),
    limit: 50,
    windowMs: HOUR,
  },
];

/**
 * Clerk's limit on updates to one object: 10 per 10 s to any one user,
 * organization or organization membership, whichever endpoint makes them (a
 * user's PATCH and its metadata PATCH share one window). As issue 49 gives it;
 * see GUIDE.md.
 */
const PER_OBJECT = { limit: 10, windowMs: 10 * SECOND, perObject: true } as const;
export const OBJECT_UPDATE_RULES: readonly Rule[] = [
  { name: "Update one user", method: "PATCH", path: new RegExp(`^/v1/users/(${ID})(?:/metadata)?/?$`), ...PER_OBJECT },
  {
    name: "Update one organization",
    method: "PATCH",
    path: new RegExp(`^/v1/organizations/(${ID})(?:/metadata)?/?$`),
    ...PER_OBJECT,
  },
  {
    name: "Update one organization",
    method: "PUT",
    path: new RegExp(`^/v1/organizations/(${ID})/metadata/?$`),
    ...PER_OBJECT,
  },
  {
    name: "Update one organization membership",
    method: "PATCH",
    path: new RegExp(`^/v1/organizations/(${ID})/memberships/(${ID})(?:/metadata)?/?$`),
    ...PER_OBJECT,
  },
];

/** Frontend API limits, per client IP address. */
export const FRONTEND_RULES: readonly Rule[] = [
  { name: "Create SignIn", method: "POST", path: /^\/v1\/client\/sign_ins\/?$/, limit: 5, windowMs: 10 * SECOND },
  { name: "Create SignUp", method: "POST", path: /^\/v1\/client\/sign_ups\/?$/, limit: 5, windowMs: 10 * SECOND },
  {
    name: "Attempt SignIn",
    method: "POST",
    path: new RegExp(`^/v1/client/sign_ins/${ID}/attempt_(first|second)_factor/?$`),
    limit: 3,
    windowMs: 10 * SECOND,
  },
  {
    name: "Attempt SignUp",
    method: "POST",
    path: new RegExp(`^/v1/client/sign_ups/${ID}/attempt_verification/?$`),
    limit: 3,
    windowMs: 10 * SECOND,
  },
];

/** The Backend API's limit for a whole instance, every endpoint but the JWKS. */
export function instanceLimit(mode: Exclude<RateLimitMode, "off">): Rule {
  return {
    name: `Backend API (${mode} instance)`,
    method: "*",
    path: /^\/v1\//,
    limit: mode === "production" ? 1_000 : 100,
    windowMs: 10 * SECOND,
  };
}

const JWKS = /^\/v1\/jwks\/?$/;

/**
 * A sliding window per key: at most `limit` calls in any `windowMs`. The
 * times of the calls let through are kept (at most `limit` of them), so the
 * answer to a refused call says exactly when the oldest leaves the window.
 */
export class SlidingWindows {
  private readonly windows = new Map<string, number[]>();
  constructor(private readonly now: () => number = Date.now) {}

  /** Counts a call; null if allowed, else the milliseconds until one is. */
  take(key: string, limit: number, windowMs: number): number | null {
    const now = this.now();
    const times = (this.windows.get(key) ?? []).filter((t) => t > now - windowMs);
    if (times.length >= limit) {
      this.windows.set(key, times);
      return times[0]! + windowMs - now;
    }
    times.push(now);
    this.windows.set(key, times);
    return null;
  }

  clear(): void {
    this.windows.clear();
  }
}

function tooManyRequests(rule: Rule, waitMs: number) {
  return {
    retryAfter: String(Math.max(1, Math.ceil(waitMs / 1000))),
    body: new ApiError(
      429,
      "too_many_requests",
      `Too many requests: ${rule.name} allows ${rule.limit} requests per ${rule.windowMs >= HOUR ? "hour" : `${rule.windowMs / 1000} seconds`}${rule.perObject ? " to the same object" : ""}. Retry after the time in the Retry-After header.`,
    ).toJSON(),
  };
}

export type RateLimiter = {
  /** Mount before the Backend API (paths relative to `/api`); counts only calls with the instance's secret key. */
  backend: RequestHandler;
  /** Mount before the Frontend API. */
  frontend: RequestHandler;
  mode: RateLimitMode;
  /** Calls answered 429 so far, per API ("bapi", "fapi"): they never reach an endpoint, so `calls` does not count them. */
  refused(): Record<"bapi" | "fapi", number>;
  reset(): void;
};

export function createRateLimiter(options: {
  mode: RateLimitMode;
  secretKey: string;
  now?: () => number;
}): RateLimiter {
  const windows = new SlidingWindows(options.now);
  const refusedCalls = { bapi: 0, fapi: 0 };
  const { mode } = options;
  const instance = mode === "off" ? null : instanceLimit(mode);

  const check = (req: Request, rules: readonly Rule[], keyOf: (rule: Rule) => string) => {
    const method = effectiveMethod(req);
    for (const rule of rules) {
      if (rule.method !== "*" && rule.method !== method) continue;
      const match = rule.path.exec(req.path);
      if (!match) continue;
      // Per object: the ids in the path are part of the key (one user, one organization, one membership).
      const key = rule.perObject ? `${keyOf(rule)} ${match.slice(1).join("/")}` : keyOf(rule);
      const wait = windows.take(key, rule.limit, rule.windowMs);
      if (wait !== null) return tooManyRequests(rule, wait);
    }
    return null;
  };

  const answer = (res: Parameters<RequestHandler>[1], refused: ReturnType<typeof tooManyRequests>) => {
    res.setHeader("Retry-After", refused.retryAfter);
    sendJson(res, 429, refused.body);
  };

  return {
    mode,
    refused: () => ({ ...refusedCalls }),
    reset() {
      windows.clear();
      refusedCalls.bapi = 0;
      refusedCalls.fapi = 0;
    },
    backend(req, res, next) {
      if (!instance || JWKS.test(req.path) || req.get("authorization") !== `Bearer ${options.secretKey}`) return next();
      const refused = check(req, [...BACKEND_ENDPOINT_RULES, ...OBJECT_UPDATE_RULES, instance], (rule) => rule.name);
      if (refused) {
        refusedCalls.bapi += 1;
        return answer(res, refused);
      }
      next();
    },
    frontend(req, res, next) {
      if (!instance) return next();
      const refused = check(req, FRONTEND_RULES, (rule) => `${rule.name} ${req.ip ?? "unknown"}`);
      if (refused) {
        refusedCalls.fapi += 1;
        return answer(res, refused);
      }
      next();
    },
  };
}

export function parseRateLimitMode(value: string | undefined): RateLimitMode {
  if (!value) return "off";
  if ((RATE_LIMIT_MODES as readonly string[]).includes(value)) return value as RateLimitMode;
  throw new Error(`CLERK_EMULATOR_RATE_LIMITS must be one of ${RATE_LIMIT_MODES.join(", ")} (got "${value}")`);
}
