import { createAnalytics } from "../app/lib/analytics/analytics.server";
import { createFleetCaches } from "../app/lib/cache/fleet.server";
import { userIdsWithEmail } from "../app/lib/clerk/backend-calls.server";
import { createClerkBackend } from "../app/lib/clerk/client.server";
import { memoryHandshakeClaims } from "../app/lib/clerk/handshake-binding.server";
import { createSigningKeys } from "../app/lib/clerk/signing-keys.server";
import { isLocalEmulator, type Env } from "../app/lib/env.server";
import { signedCookieOptions } from "../app/lib/http/cookies.server";
import { createRateLimiter } from "../app/lib/http/rate-limit.server";
import { organizationIdsOf } from "../app/lib/orgs/memberships.server";
import type { AppServices } from "../app/lib/load-context.server";
import { logEvent } from "../app/lib/log.server";
import { NO_METRICS } from "../app/lib/metrics.server";
import { createOrgCaches } from "../app/lib/cache/org-caches.server";
import { memoryStore } from "../app/lib/cache/shared-cache.server";
import { createThemeStore } from "../app/lib/theme/theme.server";
import {
  BUDGET_WINDOW_MS,
  clerkCallsPer10s,
  createCallBudget,
  UNLIMITED,
} from "../app/lib/upstream/call-budget.server";
import { readUpstreamOutsidePages } from "../app/lib/upstream/request-scope.server";
import { redisCallWindow } from "../app/lib/upstream/redis-call-window.server";
import { createCoordination } from "./coordination";
import { createMetrics } from "./metrics";
import { redisCacheStore } from "../app/lib/cache/redis-store.server";
import { redisGoneSessions } from "../app/lib/clerk/redis-gone-sessions.server";
import { redisHandshakeClaims } from "../app/lib/clerk/redis-handshake-claims.server";
import { redisMembershipIndex } from "../app/lib/cache/redis-membership-index.server";
import { connectRedis, redisConfig } from "./redis";
import { CACHE_PREFIXES, CLERK_BUDGET_KEY, redisKey } from "./redis-keys";

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
    store: redis ? redisCacheStore(redis, CACHE_PREFIXES) : memoryStore(),
    membershipIndex: redis ? redisMembershipIndex(redis, redisKey) : undefined,
    goneSessions: redis ? redisGoneSessions(redis, redisKey) : undefined,
    // Clerk's webhooks say what changed: answers may then be kept minutes.
    webhooks: env.CLERK_WEBHOOK_SIGNING_SECRET !== undefined,
  });
  const coordination = createCoordination(redis && redisAt ? { client: redis, config: redisAt } : null);
  // Clerk's webhooks reach one instance: it changes the shared copies, and the channel tells the others.
  const fleet = createFleetCaches(orgs, {
    channel: coordination,
    usersWithEmail: (email) => userIdsWithEmail(services, email),
    organizationsOf: (userId) => organizationIdsOf(services, userId),
  });
  const clerk = createClerkBackend(env);
  const budget = clerkCallsPer10s(env);
  const clerkBudget =
    budget === null
      ? UNLIMITED
      : createCallBudget({
          limit: budget,
          shared: redis
            ? redisCallWindow(redis, { fleetKey: CLERK_BUDGET_KEY, limit: budget, windowMs: BUDGET_WINDOW_MS })
            : null,
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
    handshakeClaims: redis ? redisHandshakeClaims(redis, redisKey) : memoryHandshakeClaims(),
  };
  return {
    services,
    redis,
    metrics,
    /** What `POST /webhooks/clerk` needs (server/clerk-webhooks.ts): the fleet's claims, and the caches' reading of an event. */
    webhooks: { claims: coordination, ofEvent: fleet.ofEvent },
    /** Sends queued analytics and closes connections (at shutdown). */
    async close() {
      await services.analytics?.shutdown();
      await coordination.close();
      await redis?.quit().catch(() => undefined);
    },
  };
}
