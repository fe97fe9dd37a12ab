import type { Analytics } from "./analytics.server";
import { analyticsAllowed, hasOptedOut } from "./privacy.server";

/**
 * What the browser needs to know about analytics: whether the app has them at
 * all, the project key when they run for this person, and their choice.
 */
export type AnalyticsSettings = { available: boolean; key: string | null; optedOut: boolean };

/**
 * The analytics gate: the browser gets PostHog's key (and so loads
 * posthog-js) only when the app has analytics and this person allows them.
 */
export function browserAnalytics(request: Request, analytics: Analytics | null): AnalyticsSettings {
  return {
    available: analytics !== null,
    key: analytics && analyticsAllowed(request) ? analytics.key : null,
    optedOut: hasOptedOut(request),
  };
}
