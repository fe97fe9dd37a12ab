import { useLocation, useRouteLoaderData } from "@remix-run/react";
import type { CaptureResult, PostHog } from "posthog-js";
import { useEffect, useRef, useState } from "react";
import { sendBrowserErrorsTo } from "~/lib/analytics/browser-errors";
import { withoutQuery } from "~/lib/analytics/urls";
import type { AnalyticsSettings } from "~/lib/analytics/settings.server";
import { whenIdle } from "~/lib/when-idle";
import type { loader as orgLoader } from "~/routes/orgs.$slug";

// `$current_url`, `$referrer`, `$session_entry_url`, `$initial_referrer`…: whatever posthog-js names so.
const URL_PROPERTY = /(url|referrer)$/i;

/** Every URL an event carries, without its query string (a member search's `?q=` names people). */
function withoutQueries(event: CaptureResult | null): CaptureResult | null {
  for (const bag of [event?.properties, event?.$set, event?.$set_once]) {
    if (!bag) continue;
    for (const [name, value] of Object.entries(bag)) {
      if (typeof value === "string" && URL_PROPERTY.test(name)) bag[name] = withoutQuery(value);
    }
  }
  return event;
}

/**
 * posthog-js, private by default: only page views, the errors the app reports
 * (browser-errors.ts) and the identity and organization we set; no
 * autocapture, recordings, surveys, flags or scripts from elsewhere, and no
 * query strings. Requests go to this origin's `/ingest` proxy.
 */
const POSTHOG_OPTIONS = {
  before_send: withoutQueries,
  api_host: "/ingest",
  capture_pageview: false,
  capture_pageleave: false,
  autocapture: false,
  rageclick: false,
  capture_dead_clicks: false,
  capture_heatmaps: false,
  capture_performance: false,
  capture_exceptions: false,
  disable_session_recording: true,
  disable_surveys: true,
  disable_product_tours: true,
  disable_conversations: true,
  disable_web_experiments: true,
  disable_external_dependency_loading: true,
  advanced_disable_flags: true,
  disable_compression: true,
  respect_dnt: true,
  person_profiles: "identified_only",
  save_referrer: false,
} as const;

type Loaded = { client: PostHog; scrub: typeof import("~/lib/analytics/scrub").scrubbedError };

// Loaded once, after hydration and when the browser is idle, so the first
// page never waits for it; without a key it is never requested at all. The
// scrubber of error reports comes with it: nothing is sent before.
let loading: Promise<Loaded> | null = null;
function loadPostHog(key: string): Promise<Loaded> {
  loading ??= Promise.all([import("posthog-js"), import("~/lib/analytics/scrub")]).then(
    ([{ default: posthog }, { scrubbedError }]) => {
      posthog.init(key, POSTHOG_OPTIONS);
      return { client: posthog, scrub: scrubbedError };
    },
  );
  return loading;
}

/** The organization in the URL, from its layout's data (not the session's active one). */
function useUrlOrganizationId(): string | null {
  const data = useRouteLoaderData<typeof orgLoader>("routes/orgs.$slug");
  return data?.org.id ?? null;
}

/**
 * One `$pageview` per page (the first and each client-side change), with the
 * Clerk user id as the identity (nothing else about the person) and the URL's
 * organization as the group; `reset()` once the person has signed out.
 */
export function Analytics({ settings, userId }: { settings: AnalyticsSettings; userId: string | null }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const client = loaded?.client ?? null;
  const { pathname, search } = useLocation();
  const orgId = useUrlOrganizationId();
  const lastPage = useRef<string | null>(null);
  const { key } = settings;

  useEffect(() => {
    if (!key) {
      // Opted out (or Do Not Track) while the page was open: stop at once.
      sendBrowserErrorsTo(null);
      if (client) client.opt_out_capturing();
      return;
    }
    if (client) {
      if (client.has_opted_out_capturing()) client.opt_in_capturing({ captureEventName: false });
      return;
    }
    let cancelled = false;
    const cancelIdle = whenIdle(() => void loadPostHog(key).then((both) => !cancelled && setLoaded(both)));
    return () => {
      cancelled = true;
      cancelIdle();
    };
  }, [key, client]);

  useEffect(() => {
    if (!loaded || !key) return;
    const { client } = loaded;
    if (userId) {
      if (client.get_distinct_id() !== userId) client.identify(userId);
    } else if (client.get_property("$user_state") === "identified") {
      client.reset();
    }
    // Error reports (and those that waited for posthog-js) go out under the person's identity.
    sendBrowserErrorsTo(loaded);
  }, [loaded, key, userId]);

  useEffect(() => {
    if (!client || !key) return;
    if (orgId) client.group("organization", orgId);
    else client.resetGroups();
    const page = pathname + search;
    if (lastPage.current === page) return;
    lastPage.current = page;
    client.capture("$pageview");
  }, [client, key, pathname, search, orgId, userId]);

  return null;
}
