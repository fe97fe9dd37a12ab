import type { AppMetrics } from "../metrics.server";
import { scrubbedError } from "./scrub";

/**
 * Server errors reported to PostHog's error tracking: private and bounded.
 * A report carries the error, scrubbed, and four facts about its request (the
 * reference the person sees, the route, the method, the status); nothing else
 * of the request. An outage must not flood PostHog: per instance and per
 * minute, at most `perError` reports of one error and `total` in all.
 */

export const ERROR_REPORT_LIMITS = { perError: 10, total: 100, windowMs: 60_000 };

/** What a report says about its request, besides who it was for. */
export type ErrorFacts = { requestId: string; routeId: string; method: string; status: number };

/** Where a scrubbed error goes (posthog-node's `captureException`, which queues it and sends it in the background). */
export type SendError = (error: Error, distinctId: string, properties: Record<string, unknown>) => void;

/**
 * What makes two errors the same one: its type, its message without the parts
 * that vary (numbers, ids, quoted values) and the top frame of its stack.
 */
export function fingerprint(error: Error): string {
  const message = error.message
    .replace(/(["'`]).*?\1/g, "_")
    .replace(/\b[0-9a-f]{8,}\b/gi, "_")
    .replace(/\d+/g, "0");
  const topFrame = (error.stack ?? "").split("\n").find((line) => line.trim().startsWith("at ")) ?? "";
  return `${error.name}|${message}|${topFrame.trim().replace(/:\d+:\d+\)?$/, "")}`;
}

/** The per-minute budget of reports: one fixed window, counts per fingerprint and in all. */
export function createReportBudget(limits = ERROR_REPORT_LIMITS, now: () => number = Date.now) {
  let window = -1;
  let all = 0;
  const perError = new Map<string, number>();
  return (key: string): boolean => {
    const current = Math.floor(now() / limits.windowMs);
    if (current !== window) {
      window = current;
      all = 0;
      perError.clear();
    }
    const count = perError.get(key) ?? 0;
    if (count >= limits.perError || all >= limits.total) return false;
    perError.set(key, count + 1);
    all += 1;
    return true;
  };
}

export type ErrorReporter = (error: unknown, distinctId: string, facts: ErrorFacts & { person: boolean }) => void;

/**
 * Reports errors through `send` within the budget, counting each as sent or
 * dropped. Never throws and never waits: a report that cannot be made is
 * dropped, and the page it came from answers as it would have.
 */
export function createErrorReporter(
  send: SendError,
  metrics: AppMetrics,
  budget = createReportBudget(),
): ErrorReporter {
  return (error, distinctId, { requestId, routeId, method, status, person }) => {
    const clean = scrubbedError(error);
    if (!budget(fingerprint(clean))) {
      metrics.errorReport("dropped");
      return;
    }
    try {
      send(clean, distinctId, {
        request_id: requestId,
        route_id: routeId,
        method,
        status,
        $process_person_profile: person,
      });
      metrics.errorReport("sent");
    } catch {
      metrics.errorReport("dropped");
    }
  };
}
