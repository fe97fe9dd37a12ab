import { createAnalytics } from "../app/lib/analytics/analytics.server";
import { createClerkBackend } from "../app/lib/clerk/client.server";
import { isProduction, type Env } from "../app/lib/env.server";
import { createMemoryRateLimiter } from "../app/lib/http/rate-limit.server";
import type { AppServices } from "../app/lib/load-context.server";
import { createMembershipCache } from "../app/lib/orgs/membership-cache.server";
import { createThemeStore } from "../app/lib/theme/theme.server";

/** The process-wide state every request shares, made once from the validated environment. */
export function createServices(env: Env): AppServices {
  return {
    analytics: createAnalytics(env),
    clerk: createClerkBackend(env),
    rateLimiter: createMemoryRateLimiter({ scale: env.RATE_LIMIT_SCALE }),
    memberships: createMembershipCache(),
    theme: createThemeStore({ secret: env.SESSION_SECRET, secure: isProduction(env) }),
  };
}
