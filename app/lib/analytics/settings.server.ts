import { getEnv } from "../env.server";
import type { Analytics } from "./analytics.server";
import { analyticsAllowed, hasOptedOut } from "./privacy.server";

/**
 * What the browser needs to know about analytics: whether the app has them at
 * all, the project key when they run for this person, and their choice.
 */
export type AnalyticsSettings = { available: boolean; key: string | null; optedOut: boolean };

export function browserAnalytics(request: Request, analytics: Analytics | null | undefined): AnalyticsSettings {
  const key = getEnv().POSTHOG_KEY;
  return {
    available: Boolean(analytics && key),
    key: analytics && key && analyticsAllowed(request) ? key : null,
    optedOut: hasOptedOut(request),
  };
}
