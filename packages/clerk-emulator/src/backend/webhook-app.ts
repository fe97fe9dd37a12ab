import type { Request } from "express";
import { ApiError } from "../domain/errors";
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
  const requireApp = () => {
    if (!store.state.instance.svixApp) throw new ApiError(400, "svix_app_missing", "This instance has no Svix app.");
  };
  route("POST", "/v1/webhooks/svix", (req) => {
    if (store.state.instance.svixApp)
      throw new ApiError(400, "svix_app_exists", "This instance already has a Svix app.");
    store.state.instance.svixApp = true;
    store.changed();
    return { svix_url: portalUrl(req) };
  });
  route("DELETE", "/v1/webhooks/svix", (_req, res) => {
    requireApp();
    store.state.instance.svixApp = false;
    store.changed();
    res.status(204).end();
    return null;
  });
  route("POST", "/v1/webhooks/svix_url", (req) => {
    requireApp();
    return { svix_url: portalUrl(req) };
  });
}
