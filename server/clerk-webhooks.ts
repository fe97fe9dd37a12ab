import { verifyWebhook } from "@clerk/backend/webhooks";
import express from "express";
import { logEvent } from "../app/lib/log.server";
import type { AppMetrics, WebhookOutcome } from "../app/lib/metrics.server";
import type { Coordination } from "./coordination";

export const WEBHOOK_PATH = "/webhooks/clerk";
const MAX_BODY = "64kb";
/** The headers Svix signs a delivery with (Standard Webhooks'). */
const SVIX_HEADERS = ["svix-id", "svix-timestamp", "svix-signature"] as const;
/** How far from this server's clock a delivery's `svix-timestamp` may be: Svix's tolerance, as verifyWebhook applies it. */
const SVIX_TOLERANCE_SECONDS = 5 * 60;

/**
 * Whether a request may be one of Svix's deliveries, from its headers alone:
 * `svix-id`, `svix-timestamp` and `svix-signature`, the timestamp within
 * Svix's 5 minutes either way. The signature covers the body, so this much
 * is all that can be known before reading it; a request that fails it would
 * fail verification. (Anyone can send such headers: this keeps out what is
 * plainly not a delivery, not what pretends to be one.)
 */
export function isTimelySvixDelivery(header: (name: string) => string | undefined, nowMs = Date.now()): boolean {
  const [id, timestamp, signature] = SVIX_HEADERS.map(header);
  if (!id || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  const offBy = Math.floor(nowMs / 1000) - Number(timestamp);
  return Math.abs(offBy) <= SVIX_TOLERANCE_SECONDS;
}

/** A signed body that is a Clerk event: a type, and data the changes are read from. */
const isEvent = (value: unknown): value is { type: string; data: Record<string, unknown> } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { type?: unknown }).type === "string" &&
  typeof (value as { data?: unknown }).data === "object" &&
  (value as { data?: unknown }).data !== null;

/**
 * `POST /webhooks/clerk`: Clerk's webhooks (through Svix) say what changed:
 * the kept answers it touches are written from its payload where that
 * carries them, else forgotten (the shared caches' `ofEvent`:
 * app/lib/cache/fleet.server), in Redis, and every other instance drops its
 * own copies.
 * - signed with CLERK_WEBHOOK_SIGNING_SECRET (Standard Webhooks), with a
 *   timestamp at most 5 minutes off, or refused with 400;
 * - a message already applied (the same `svix-id`: Svix retries, or a replay)
 *   is acknowledged and not applied again; one being applied by another
 *   delivery gets 503, as it may yet fail;
 * - bodies over 64 KB get 413; events the caches do not depend on, 200;
 * - when Redis fails (the shared copies could not be dropped, or the other
 *   instances told), or Clerk (to find whose invitations an invitation to an
 *   address changed), 503: Svix tries again later. A message whose id could
 *   not be claimed still has what it touches forgotten (never written) where
 *   it can be before that 503.
 */
export function clerkWebhooks({
  secret,
  claims,
  ofEvent,
  metrics,
}: {
  secret: string | undefined;
  /** Which deliveries are applied, across the fleet (coordination.ts). */
  claims: Pick<Coordination, "claim" | "applied" | "release">;
  /** What the shared caches make of a verified event: its changes to apply, or null when none depends on it. */
  ofEvent: (
    type: string,
    data: Record<string, unknown>,
    meta: { timestamp: number | null },
  ) => { apply(options?: { asForgets?: boolean }): Promise<void> } | null;
  metrics: AppMetrics;
}): [express.RequestHandler, express.RequestHandler, express.ErrorRequestHandler] {
  const answer = (
    res: express.Response,
    status: number,
    outcome: WebhookOutcome,
    type: string | null,
    message: string,
  ) => {
    metrics.clerkWebhook(outcome);
    logEvent("clerk_webhook", { outcome, type, status });
    res.status(status).set("Cache-Control", "no-store").json({ message });
  };

  /** Verifies, then applies once: the answer Svix gets says whether to deliver it again. */
  async function receive(req: express.Request, res: express.Response) {
    if (!secret) return answer(res, 404, "refused", null, "Webhooks are not configured here.");
    const id = req.get("svix-id") ?? "";
    const headers = new Headers();
    for (const name of SVIX_HEADERS) {
      const value = req.get(name);
      if (value !== undefined) headers.set(name, value);
    }
    const body = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    const request = new Request(`http://webhook${WEBHOOK_PATH}`, { method: "POST", headers, body });
    const event: unknown = await verifyWebhook(request, { signingSecret: secret }).catch(() => null);
    if (event === null) return answer(res, 400, "refused", null, "The webhook's signature did not verify.");
    if (!isEvent(event)) return answer(res, 400, "refused", null, "That is not a Clerk event.");
    // When Clerk made the event (ms): the signed body has it, verifyWebhook's answer leaves it out.
    const { timestamp } = JSON.parse(body) as { timestamp?: unknown };
    const changes = ofEvent(event.type, event.data, { timestamp: typeof timestamp === "number" ? timestamp : null });
    // An event no kept answer depends on (a session began, an email was sent) is acknowledged
    // without a claim: applying it does nothing, so nothing can be applied twice, and it costs
    // Redis nothing (Clerk sends one for every sign-in) nor fails while Redis is away.
    if (!changes) return answer(res, 200, "ignored", event.type, "Nothing to do.");
    const unavailable = () =>
      answer(res, 503, "unavailable", event.type, "Redis or Clerk is unavailable; try again later.");
    const claim = await claims.claim(id).catch(() => null);
    if (claim === null) {
      // The id could not be claimed (Redis failing, or on a cluster only the node that holds
      // it, mid-failover): what the change touches is dropped all the same wherever it can be
      // (forgetting twice is harmless), so a removed member's kept memberships on a working
      // node do not let them in until Svix's next delivery, which applies it again.
      // Written answers could be applied twice, or out of order, unclaimed: forgotten instead.
      await changes.apply({ asForgets: true }).catch(() => undefined);
      return unavailable();
    }
    if (claim === "applied") return answer(res, 200, "replayed", event.type, "Already applied.");
    // Not applied yet (another delivery is at it, or one that failed left its claim): Svix retries later.
    if (claim === "applying")
      return answer(res, 503, "in_progress", event.type, "This message is being applied; try again later.");
    try {
      await changes.apply();
    } catch {
      // Not applied: the id goes back for Svix's next delivery (or, Redis away, frees itself shortly).
      await claims.release(id).catch(() => undefined);
      return unavailable();
    }
    // Applied even if this fails: the id is then free again after its short claim, and a replay only forgets again.
    await claims.applied(id).catch(() => undefined);
    answer(res, 200, "applied", event.type, "Applied.");
  }

  const tooLarge: express.ErrorRequestHandler = (error: { type?: string }, _req, res, next) => {
    if (error.type === "entity.too.large") return answer(res, 413, "refused", null, "That webhook is too large.");
    next(error);
  };

  return [
    express.raw({ type: () => true, limit: MAX_BODY }),
    (req, res, next) => void receive(req, res).catch(next),
    tooLarge,
  ];
}
