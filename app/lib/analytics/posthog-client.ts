import posthog, { type CaptureResult } from "posthog-js";
import { scrubbedError } from "./scrub";
import { withoutQuery } from "./urls";

// The browser's analytics client, loaded when the browser is idle (components/analytics.tsx):
// posthog-js, its settings and the error scrubber stay out of the first-load JavaScript.

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

/** posthog-js started with this app's settings, and the scrubber its error reports go through. */
export function startPostHog(key: string) {
  posthog.init(key, POSTHOG_OPTIONS);
  return { client: posthog, scrub: scrubbedError };
}
