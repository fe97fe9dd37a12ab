import { PostHog } from "posthog-node";
import { readCookie } from "../http/cookies.server";
import { logEvent } from "../log.server";
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
export function createAnalytics(env: { POSTHOG_KEY?: string; POSTHOG_HOST?: string }): Analytics | null {
  const key = env.POSTHOG_KEY;
  if (!key) return null;
  const client = new PostHog(key, {
    host: env.POSTHOG_HOST ?? DEFAULT_POSTHOG_HOST,
    flushAt: 20,
    flushInterval: 5_000,
    requestTimeout: 5_000,
    disableGeoip: true,
  });
  client.on("error", (error: unknown) =>
    logEvent("analytics_error", { message: error instanceof Error ? error.message : String(error) }),
  );
  return {
    key,
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
