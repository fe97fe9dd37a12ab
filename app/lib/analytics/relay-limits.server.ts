import type { AppLoadContext } from "@remix-run/node";
import { clientAddressKey } from "../http/client-address.server";
import { waitText, type RateLimitedAction } from "../http/rate-limit.server";

// The /ingest relay's limits (numbers and reasons: app/lib/http/rate-limit.server.ts): how many requests a
// client address may make, and how much of what they carry (events, bytes) is passed on to PostHog, from
// that address and from everyone. Each answers a refusal with 429 and `Retry-After`.

const plain429 = (text: string, retryAfterSeconds: number) =>
  new Response(text, {
    status: 429,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "Retry-After": String(retryAfterSeconds),
    },
  });

/** A client past the relay's requests a minute (per address, an IPv6 one by its /64), or null. */
export async function requestsOverLimit(context: AppLoadContext): Promise<Response | null> {
  const result = await context.rateLimiter.consume("analytics-relay", `ip:${clientAddressKey(context.clientIp)}`);
  if (result.allowed) return null;
  context.metrics.rateLimitRefusal("analytics-relay");
  return plain429("Too many analytics requests", result.retryAfterSeconds);
}

const CAPPED: Partial<Record<RateLimitedAction, string>> = {
  "analytics-relay-events": "Too many analytics events from your address",
  "analytics-relay-bytes": "Too much analytics data from your address",
  "analytics-relay-fleet-events": "Too many analytics events from everyone at once",
  "analytics-relay-fleet-bytes": "Too much analytics data from everyone at once",
};

/**
 * Counts a read batch's events and bytes against the caps of its client address and of the fleet, all or
 * none (a refused batch costs no one anything); null when it may be relayed, else the 429 to answer.
 */
export async function batchOverCaps(
  context: AppLoadContext,
  batch: { events: number; bytes: number },
): Promise<Response | null> {
  const address = `ip:${clientAddressKey(context.clientIp)}`;
  const result = await context.rateLimiter.consumeAll([
    { action: "analytics-relay-events", who: address, points: batch.events },
    { action: "analytics-relay-bytes", who: address, points: batch.bytes },
    { action: "analytics-relay-fleet-events", who: "fleet", points: batch.events },
    { action: "analytics-relay-fleet-bytes", who: "fleet", points: batch.bytes },
  ]);
  if (result.allowed) return null;
  context.metrics.rateLimitRefusal(result.action);
  const text = `${CAPPED[result.action] ?? "Too many analytics events"}: nothing was sent on. Try again in ${waitText(result.retryAfterSeconds)}.`;
  return plain429(text, result.retryAfterSeconds);
}
