import type { Request } from "express";
import { createSvixApp, deleteSvixApp, requireSvixApp } from "../domain/webhook-endpoints";
import type { BackendContext, Route } from "./context";

/**
 * Clerk's Svix app (`/v1/webhooks/svix…`): the instance's webhooks go through
 * it. Deleting it stops every webhook (the emulator sends none until it is
 * created again); the endpoint the webhooks go to is configured in Svix's
 * portal, never through these calls, so here it stays what the emulator was
 * started with. `svix_url` is the emulator's own read-only portal: the
 * endpoint and its recent deliveries, at an unguessable address.
 */
export function registerWebhookAppRoutes(
  route: Route,
  { store }: BackendContext,
  portalUrl: (req: Request) => string,
): void {
  route("POST", "/v1/webhooks/svix", { body: {} }, (req) => {
    createSvixApp(store);
    return { svix_url: portalUrl(req) };
  });
  route("DELETE", "/v1/webhooks/svix", { body: {} }, (_req, res) => {
    deleteSvixApp(store);
    res.status(204).end();
    return null;
  });
  route("POST", "/v1/webhooks/svix_url", { body: {} }, (req) => {
    requireSvixApp(store);
    return { svix_url: portalUrl(req) };
  });
}
