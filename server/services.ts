import { createAnalytics } from "../app/lib/analytics/analytics.server";
import { createClerkBackend } from "../app/lib/clerk/client.server";
import { memoryHandshakeClaims } from "../app/lib/clerk/handshake-binding.server";
import { createSigningKeys } from "../app/lib/clerk/signing-keys.server";
import { isLocalEmulator, type Env } from "../app/lib/env.server";
import { signedCookieOptions } from "../app/lib/http/cookies.server";
import { createRateLimiter } from "../app/lib/http/rate-limit.server";
import type { AppServices } from "../app/lib/load-context.server";
import { logEvent } from "../app/lib/log.server";
import { NO_METRICS } from "../app/lib/metrics.server";
import { createOrgCaches } from "../app/lib/orgs/org-caches.server";
import { memoryStore } from "../app/lib/shared-cache.server";
import { createThemeStore } from "../app/lib/theme/theme.server";
import {
  BUDGET_WINDOW_MS,
  clerkCallsPer10s,
  createCallBudget,
  UNLIMITED,
} from "../app/lib/upstream/call-budget.server";
import { readUpstreamOutsidePages } from "../app/lib/upstream/request-scope.server";
import { redisCallWindow } from "./clerk-call-budget";
import { createCoordination } from "./coordination";
import { createMetrics } from "./metrics";
import { redisCacheStore } from "./redis-cache-store";
import { redisGoneSessions } from "./redis-gone-sessions";
import { redisHandshakeClaims } from "./redis-handshake-claims";
import { redisMembershipIndex } from "./redis-membership-index";
import { connectRedis, redisConfig } from "./redis";

/**
 * The process-wide state every request shares, made once from the validated
 * environment. Metrics are recorded only when something can scrape them
 * (METRICS_PORT); otherwise the app's counters are no-ops.
 */
export function createServices(env: Env) {
  const redisAt = redisConfig(env);
  const redis = redisAt ? connectRedis(redisAt) : null;
  const metrics = env.METRICS_PORT === undefined ? null : createMetrics({ redis });
  const orgs = createOrgCaches({
    metrics: metrics?.app,
    store: redis ? redisCacheStore(redis) : memoryStore(),
    membershipIndex: redis ? redisMembershipIndex(redis) : undefined,
    goneSessions: redis ? redisGoneSessions(redis) : undefined,
    // Clerk's webhooks say what changed: answers may then be kept minutes.
    webhooks: env.CLERK_WEBHOOK_SIGNING_SECRET !== undefined,
  });
  const coordination = createCoordination(orgs, redis && redisAt ? { client: redis, config: redisAt } : null);
  const clerk = createClerkBackend(env);
  const budget = clerkCallsPer10s(env);
  const clerkBudget =
    budget === null
      ? UNLIMITED
      : createCallBudget({
          limit: budget,
          shared: redis ? redisCallWindow(redis, budget, BUDGET_WINDOW_MS) : null,
        });
  const counted = { backoff: coordination.backoff, metrics: metrics?.app ?? NO_METRICS, clerkBudget };
  if (!env.CLERK_JWT_KEY && !isLocalEmulator(env)) {
    logEvent("warning", {
      component: "clerk",
      message:
        "CLERK_JWT_KEY is not set: session tokens are verified with Clerk's JWKS, read from its Backend API (on first use, then at most once a minute for a key id it lacks). Set it to the PEM public key (Clerk Dashboard → API keys → JWT public key) to verify them without a network call, as Clerk recommends.",
    });
  }
  const services: AppServices = {
    analytics: createAnalytics(env, metrics?.app),
    clerk,
    signingKeys: createSigningKeys({
      jwtKey: env.CLERK_JWT_KEY,
      readKeys: () =>
        readUpstreamOutsidePages(counted, "clerk.jwks.getJwks", () => clerk.jwks.getJwks()).then(
          ({ keys }) => keys ?? [],
        ),
    }),
    metrics: counted.metrics,
    rateLimiter: createRateLimiter({ scale: env.RATE_LIMIT_SCALE, redis }),
    orgs,
    backoff: counted.backoff,
    clerkBudget,
    theme: createThemeStore(signedCookieOptions(env)),
    handshakeClaims: redis ? redisHandshakeClaims(redis) : memoryHandshakeClaims(),
  };
  return {
    services,
    redis,
    metrics,
    coordination,
    /** Sends queued analytics and closes connections (at shutdown). */
    async close() {
      await services.analytics?.shutdown();
      await coordination.close();
      await redis?.quit().catch(() => undefined);
    },
  };
}
