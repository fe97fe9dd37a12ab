import { createLinkToken, takeLinkToken } from "../domain/multi-domain";
import { frontendApiPath, proxyUrlOf, publicOrigin } from "../http/proxy";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { allowedRedirect } from "./redirects";

/**
 * Multi-domain sync for production instances (clerk-js's
 * `#buildSyncUrlForProductionInstances`): a satellite app sends the browser to
 * `<Frontend API>/v1/client/sync?redirect_url=<the satellite's page>`. Here the
 * browser carries the primary's `__client`; a one-time token is made for it,
 * and the browser goes on to `/v1/client/link` on the satellite's origin,
 * which gives that origin the same client and sends the browser back to the
 * page with `__clerk_synced=true` (clerk-js and @clerk/backend stop syncing on it).
 *
 * The emulator's instance has no satellite domains of its own: a satellite is
 * an allowed origin that reaches this Frontend API through the same path
 * (local mode's `/__clerk`, or the same proxy path). Every redirect goes only
 * to an allowed origin (`allowedRedirect`).
 */
export function registerMultiDomainRoutes(route: Route, fapi: FrontendContext): void {
  const synced = (redirectUrl: string) => {
    const back = new URL(redirectUrl);
    back.searchParams.set("__clerk_synced", "true");
    return back.toString();
  };

  route("GET", "/v1/client/sync", (req, res) => {
    const redirectUrl = str(req.query.redirect_url);
    if (!redirectUrl) throw new ApiError(422, "form_param_missing", "redirect_url is missing", "redirect_url");
    const target = allowedRedirect(req, fapi, redirectUrl);
    const linkDomain = str(req.query.link_domain);
    if (linkDomain !== null && linkDomain !== target.host)
      throw new ApiError(
        400,
        "form_param_value_invalid",
        "link_domain must be the domain of redirect_url",
        "link_domain",
      );
    res.setHeader("Cache-Control", "no-store");
    const client = fapi.currentClient(req);
    // A browser with no client here has nothing to share: the satellite stays signed out.
    if (!client) return res.redirect(307, synced(target.toString()));
    const token = createLinkToken(fapi.store, {
      clientId: client.id,
      origin: target.origin,
      redirectUrl: target.toString(),
    });
    const path = frontendApiPath(req, fapi.secretKey, fapi.mountPath).replace(/\/$/, "");
    const link = new URL(`${path}/v1/client/link`, target.origin);
    link.searchParams.set("__clerk_token", token);
    res.redirect(307, link.toString());
  });

  route("GET", "/v1/client/link", (req, res) => {
    const token = str(req.query.__clerk_token);
    if (!token) throw new ApiError(422, "form_param_missing", "__clerk_token is missing", "__clerk_token");
    const link = takeLinkToken(fapi.store, token);
    if (!link)
      throw new ApiError(400, "form_param_value_invalid", "The sync token is invalid or has expired", "__clerk_token");
    // The token was made for one satellite origin: opened anywhere else it links nothing.
    const origin = proxyUrlOf(req, fapi.secretKey)?.origin ?? publicOrigin(req);
    if (origin !== link.origin)
      throw new ApiError(403, "origin_invalid", "This sync token was made for another domain", "__clerk_token");
    const client = fapi.store.client(link.clientId);
    fapi.setClientCookies(req, res, client);
    res.setHeader("Cache-Control", "no-store");
    res.redirect(307, synced(link.redirectUrl));
  });
}
