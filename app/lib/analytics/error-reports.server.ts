import { createHash } from "node:crypto";
import type { AppMetrics } from "../metrics.server";
import { scrubbedError } from "./scrub";

/**
 * Server errors reported to PostHog's error tracking: private and bounded.
 * A report carries the error, scrubbed, and four facts about its request (the
 * reference the person sees, the route, the method, the status); nothing else
 * of the request. An outage must not flood PostHog: per instance and in any
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

/**
 * The budget of reports: in any `windowMs` (a sliding window, not the
 * calendar minute, which would let twice the limit out across a minute's
 * boundary), at most `perError` of one fingerprint and `total` in all. It
 * remembers only what it sent within the window, so it holds at most `total`
 * sends and as many fingerprints. Its clock is monotonic: a wall clock set
 * back would hold reports back for as long.
 */
export function createReportBudget(limits = ERROR_REPORT_LIMITS, now: () => number = () => performance.now()) {
  const sent: { key: string; at: number }[] = [];
  const perError = new Map<string, number>();
  const allow = (fingerprint: string): boolean => {
    // Kept as a digest: an error's message may carry what a client sent.
    const key = createHash("sha256").update(fingerprint).digest("base64url");
    const at = now();
    while (sent.length > 0 && sent[0]!.at <= at - limits.windowMs) {
      const { key: old } = sent.shift()!;
      const left = perError.get(old)! - 1;
      if (left === 0) perError.delete(old);
      else perError.set(old, left);
    }
    const count = perError.get(key) ?? 0;
    if (count >= limits.perError || sent.length >= limits.total) return false;
    sent.push({ key, at });
    perError.set(key, count + 1);
    return true;
  };
  // How many fingerprints it remembers: for tests of its bound.
  return Object.assign(allow, { remembered: () => perError.size });
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
  budget: (key: string) => boolean = createReportBudget(),
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
