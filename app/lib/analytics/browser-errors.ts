import type { PostHog } from "posthog-js";
import type { scrubbedError } from "./scrub";
import { withoutQuery } from "./urls";

/**
 * Browser errors reported to PostHog's error tracking, through posthog-js and
 * so through `/ingest`. Listening starts before hydration (entry.client), so
 * nothing early is missed; reports wait in a short queue until posthog-js is
 * loaded for a person who allows analytics, and are dropped when it is not
 * (no key, opted out): nothing PostHog's is ever loaded for them. The
 * scrubber comes with posthog-js, after the page: errors wait as thrown, in
 * this page's memory only, and are scrubbed as they are sent.
 */

export type ErrorSource = "error boundary" | "unhandled error" | "unhandled rejection" | "module load";

/** A page that breaks in a loop must not flood PostHog: this many reports per page load at most. */
const MAX_PER_PAGE = 10;

type Report = { thrown: unknown; properties: { source: ErrorSource; reference?: string } };

let send: ((report: Report) => void) | null = null;
let waiting: Report[] = [];
let made = 0;
const seen = new WeakSet<object>();

/** Reports one error (once per error object), scrubbed, or keeps it until reports can be sent. */
export function reportBrowserError(value: unknown, source: ErrorSource, reference?: string): void {
  if (typeof value === "object" && value !== null) {
    if (seen.has(value)) return;
    seen.add(value);
  }
  if (made >= MAX_PER_PAGE) return;
  made += 1;
  const report = { thrown: value, properties: reference ? { source, reference } : { source } };
  if (send) send(report);
  else waiting.push(report);
}

/**
 * Where reports go: posthog-js once loaded for a person who allows analytics,
 * each scrubbed by `scrub` (scrub.ts's `scrubbedError`, loaded with it), or
 * nowhere (`null`: opted out while the page was open), which also drops what
 * was waiting.
 */
export function sendBrowserErrorsTo(to: { client: PostHog; scrub: typeof scrubbedError } | null): void {
  send = to ? ({ thrown, properties }) => void to.client.captureException(to.scrub(thrown), properties) : null;
  const pending = waiting;
  waiting = [];
  if (send) pending.forEach(send);
}

const MODULE_LOAD_FAILURE = /dynamically imported module|module script failed|Importing a module script failed/i;

/**
 * Listens for what no code caught: errors, promise rejections, and scripts or
 * modules that fail to load (`error` on a `<script>` or `<link>` does not
 * bubble, so the listener captures).
 */
export function captureUncaughtErrors(target: Window = window): void {
  target.addEventListener(
    "error",
    (event) => {
      const element = event.target;
      if (element instanceof HTMLScriptElement || element instanceof HTMLLinkElement) {
        const url = element instanceof HTMLScriptElement ? element.src : element.href;
        const failure = new Error(`Failed to load ${withoutQuery(url)}`);
        failure.name = "ChunkLoadError";
        reportBrowserError(failure, "module load");
        return;
      }
      if (event instanceof ErrorEvent) reportBrowserError(event.error ?? event.message, "unhandled error");
    },
    true,
  );
  target.addEventListener("unhandledrejection", (event) => {
    const reason: unknown = event.reason;
    const moduleLoad = reason instanceof Error && MODULE_LOAD_FAILURE.test(reason.message);
    reportBrowserError(reason, moduleLoad ? "module load" : "unhandled rejection");
  });
}
