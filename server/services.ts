import { createAnalytics } from "../app/lib/analytics/analytics.server";
import { createClerkBackend } from "../app/lib/clerk/client.server";
import { isProduction, type Env } from "../app/lib/env.server";
import { createRateLimiter } from "../app/lib/http/rate-limit.server";
import type { AppServices } from "../app/lib/load-context.server";
import { NO_METRICS } from "../app/lib/metrics.server";
import { createOrgCaches } from "../app/lib/orgs/org-caches.server";
import { memoryStore } from "../app/lib/shared-cache.server";
import { createThemeStore } from "../app/lib/theme/theme.server";
import { createCoordination } from "./coordination";
import { createMetrics } from "./metrics";
import { redisCacheStore } from "./redis-cache-store";
import { connectRedis } from "./redis";

/**
 * The process-wide state every request shares, made once from the validated
 * environment. Metrics are recorded only when something can scrape them
 * (METRICS_PORT); otherwise the app's counters are no-ops.
 */
export function createServices(env: Env) {
  const redis = env.REDIS_URL ? connectRedis(env.REDIS_URL) : null;
  const metrics = env.METRICS_PORT === undefined ? null : createMetrics({ redis });
  const orgs = createOrgCaches({
    metrics: metrics?.app,
    store: redis ? redisCacheStore(redis) : memoryStore(),
    // Clerk's webhooks say what changed: answers may then be kept minutes.
    webhooks: env.CLERK_WEBHOOK_SIGNING_SECRET !== undefined,
  });
  const coordination = createCoordination(orgs, redis && env.REDIS_URL ? { client: redis, url: env.REDIS_URL } : null);
  const services: AppServices = {
    analytics: createAnalytics(env, metrics?.app),
    clerk: createClerkBackend(env),
    metrics: metrics?.app ?? NO_METRICS,
    rateLimiter: createRateLimiter({ scale: env.RATE_LIMIT_SCALE, redis }),
    orgs,
    backoff: coordination.backoff,
    theme: createThemeStore({ secret: env.SESSION_SECRET, secure: isProduction(env) }),
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
