import { createAnalytics } from "../app/lib/analytics/analytics.server";
import { createClerkBackend } from "../app/lib/clerk/client.server";
import { isProduction, type Env } from "../app/lib/env.server";
import { createRateLimiter } from "../app/lib/http/rate-limit.server";
import type { AppServices } from "../app/lib/load-context.server";
import { NO_METRICS } from "../app/lib/metrics.server";
import { createOrgCaches } from "../app/lib/orgs/org-caches.server";
import { createThemeStore } from "../app/lib/theme/theme.server";
import { createMetrics } from "./metrics";
import { connectRedis } from "./redis";

/**
 * The process-wide state every request shares, made once from the validated
 * environment. Metrics are recorded only when something can scrape them
 * (METRICS_PORT); otherwise the app's counters are no-ops.
 */
export function createServices(env: Env) {
  const redis = env.REDIS_URL ? connectRedis(env.REDIS_URL) : null;
  const metrics = env.METRICS_PORT === undefined ? null : createMetrics({ redis });
  const services: AppServices = {
    analytics: createAnalytics(env, metrics?.app),
    clerk: createClerkBackend(env),
    metrics: metrics?.app ?? NO_METRICS,
    rateLimiter: createRateLimiter({ scale: env.RATE_LIMIT_SCALE, redis }),
    orgs: createOrgCaches(metrics?.app),
    theme: createThemeStore({ secret: env.SESSION_SECRET, secure: isProduction(env) }),
  };
  return {
    services,
    redis,
    metrics,
    /** Sends queued analytics and closes connections (at shutdown). */
    async close() {
      await services.analytics?.shutdown();
      await redis?.quit().catch(() => undefined);
    },
  };
}
