import { PostHog } from "posthog-node";
import { readCookie } from "../http/cookies.server";
import { logEvent } from "../log.server";
import { NO_METRICS, type AppMetrics } from "../metrics.server";
import { createErrorReporter, type ErrorFacts } from "./error-reports.server";
import { analyticsAllowed } from "./privacy.server";

/** The events the server reports: the actions that matter, nothing else. */
export type ServerEvent = "organization created" | "member invited" | "invitation revoked" | "theme changed";

export const DEFAULT_POSTHOG_HOST = "https://us.i.posthog.com";

export type Analytics = {
  /** The PostHog project key the browser uses too. */
  key: string;
  /** Queues one event; never blocks or fails the response. Does nothing for people who opted out. */
  capture(
    request: Request,
    event: ServerEvent,
    who: { userId: string | null; orgId?: string | null; properties?: Record<string, string> },
  ): void;
  /**
   * Reports an unexpected error (one that ends in the 500 page) to PostHog's
   * error tracking, scrubbed and within the flood bound (error-reports.server).
   * Never blocks or fails the response.
   */
  reportError(request: Request, error: unknown, facts: ErrorFacts & { userId: string | null }): void;
  /** Sends what is queued (at shutdown). */
  shutdown(): Promise<void>;
};

/** posthog-js keeps its anonymous id in `ph_<key>_posthog`; the server reuses it for signed-out events. */
function browserDistinctId(request: Request, key: string): string | null {
  const raw = readCookie(request, `ph_${key.replace(/\+/g, "PL").replace(/\//g, "SL").replace(/=/g, "EQ")}_posthog`);
  if (!raw) return null;
  try {
    const id = (JSON.parse(raw) as { distinct_id?: unknown }).distinct_id;
    return typeof id === "string" && id.length <= 200 ? id : null;
  } catch {
    return null;
  }
}

/**
 * Server-side analytics, or `null` when `POSTHOG_KEY` is unset. Events are
 * queued and sent in batches (20 events or every 5 s), and on shutdown.
 */
export function createAnalytics(
  env: { POSTHOG_KEY?: string; POSTHOG_HOST?: string },
  metrics: AppMetrics = NO_METRICS,
): Analytics | null {
  const key = env.POSTHOG_KEY;
  if (!key) return null;
  const client = new PostHog(key, {
    host: env.POSTHOG_HOST ?? DEFAULT_POSTHOG_HOST,
    flushAt: 20,
    flushInterval: 5_000,
    requestTimeout: 5_000,
    disableGeoip: true,
    // POSTHOG_HOST and nowhere else: a redirect from it is an error, never followed.
    fetch: (url, options) => fetch(url, { ...options, body: options.body as BodyInit | undefined, redirect: "manual" }),
  });
  client.on("error", (error: unknown) =>
    logEvent("analytics_error", { message: error instanceof Error ? error.message : String(error) }),
  );
  const reportError = createErrorReporter(
    (error, distinctId, properties) => client.captureException(error, distinctId, properties),
    metrics,
  );
  return {
    key,
    reportError(request, error, { userId, ...facts }) {
      // Whoever opted out is not named in a report (their request id stands in); the error itself
      // is the team's to see. Signed out, the browser's anonymous id ties it to their page views.
      const allowed = analyticsAllowed(request);
      const distinctId = (allowed ? (userId ?? browserDistinctId(request, key)) : null) ?? `request:${facts.requestId}`;
      reportError(error, distinctId, { ...facts, person: allowed && userId !== null });
    },
    capture(request, event, { userId, orgId, properties }) {
      if (!analyticsAllowed(request)) return;
      const distinctId = userId ?? browserDistinctId(request, key);
      // No id means a visitor with no analytics cookie: counting them would invent a person.
      if (!distinctId) return;
      client.capture({
        distinctId,
        event,
        properties: { ...properties, $process_person_profile: Boolean(userId) },
        groups: orgId ? { organization: orgId } : undefined,
      });
    },
    shutdown: () => client.shutdown(5_000),
  };
}
