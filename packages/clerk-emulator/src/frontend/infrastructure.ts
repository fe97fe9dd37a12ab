import { frontendApiPath } from "../http/proxy";
import { ApiError } from "../domain/errors";
import { sendJson, str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { newDevBrowser } from "./dev-browsers";
import { allowedRedirect, homeUrl } from "./redirects";

/**
 * The Frontend API's operations that are not a resource: health checks, the
 * redirect helper, the account portal, development browsers, the OAuth
 * callback and integration tokens, as Clerk's answer them for this emulator's
 * instance (a production instance with no OAuth providers, integrations,
 * account portal or agent tasks).
 */
export function registerInfrastructureRoutes(route: Route, fapi: FrontendContext): void {
  route("GET", "/v1/health", () => ({ status: "healthy" }));

  /**
   * Clerk's proxy check (the Backend API's `POST /v1/proxy_checks`, the
   * dashboard's "Verify" button) calls `<proxy_url>/v1/proxy-health`: the
   * proxy is sound when it forwards the call here with the headers the proxy
   * guide names — `Clerk-Proxy-Url`, the instance's `Clerk-Secret-Key` and
   * `X-Forwarded-For` — and the answer echoes the client address it passed on.
   */
  route("GET", "/v1/proxy-health", (req, res) => {
    const domainId = str(req.query.domain_id);
    if (!domainId) throw new ApiError(400, "form_param_missing", "domain_id is missing", "domain_id");
    const unhealthy = (message: string) => sendJson(res, 503, { status: "unhealthy", message });
    // The primary domain's id (GET /v1/instance) or a satellite's (`/v1/domains`).
    if (domainId !== "dmn_emulator" && !fapi.store.state.instance.satelliteDomains.some((d) => d.id === domainId)) {
      return unhealthy(`No domain ${domainId} in this instance.`);
    }
    const proxyUrl = req.get("clerk-proxy-url");
    if (!proxyUrl) return unhealthy("The request has no Clerk-Proxy-Url header: it did not come through a proxy.");
    try {
      if (!/^https?:$/.test(new URL(proxyUrl).protocol)) throw new Error("not http(s)");
    } catch {
      return unhealthy("Clerk-Proxy-Url is not an absolute http(s) URL.");
    }
    const key = req.get("clerk-secret-key");
    if (!key) return unhealthy("The proxy did not send the Clerk-Secret-Key header.");
    if (key !== fapi.secretKey) return unhealthy("Clerk-Secret-Key is not this instance's secret key.");
    const forwardedFor = req.get("x-forwarded-for");
    if (!forwardedFor) return unhealthy("The proxy did not send the X-Forwarded-For header.");
    return { status: "healthy", x_forwarded_for: forwardedFor };
  });

  // What a signed-out page asks of a browser: forget everything this origin stored.
  route("GET", "/v1/clear-site-data", (_req, res) => {
    res.setHeader("Clear-Site-Data", '"*"');
    res.setHeader("Cache-Control", "no-store");
    res.status(200).end();
  });

  // Sends the browser to `redirect_url` when it is on an allowed origin, else refuses; without one, home.
  route("GET", "/v1/redirect", (req, res) => {
    const wanted = str(req.query.redirect_url);
    const target = wanted ? allowedRedirect(req, fapi, wanted).toString() : homeUrl(req, fapi);
    res.setHeader("Cache-Control", "no-store");
    res.redirect(307, target);
  });

  // The emulator has no Account Portal (Clerk's hosted pages): the app's own pages stand in for it.
  route("GET", "/v1/account_portal", () => ({
    object: "account_portal",
    allowed: false,
    enabled: false,
    internal_linking: false,
    after_sign_in_url: "/",
    after_sign_up_url: "/",
    after_join_waitlist_url: "/",
    after_create_organization_url: "/orgs",
    after_leave_organization_url: "/orgs",
    logo_link_url: "/",
    customization: {
      appearance: null,
      background_color_dark: null,
      background_color_light: null,
      primary_color_dark: null,
      primary_color_light: null,
    },
  }));

  /**
   * Suggestions for a new organization's form. The instance does not turn the
   * feature on (the environment's organization settings carry no
   * `organization_creation_defaults`, which clerk-js reads as off), so there is
   * nothing to suggest: clerk-js's own empty defaults, and no advisory.
   */
  route("GET", "/v1/me/organization_creation_defaults", (req, res) => {
    fapi.me(req);
    return fapi.reply(req, res, { form: { name: "", slug: "", logo: null, blur_hash: null }, advisory: null });
  });

  /**
   * Development browsers belong to development instances: clerk-js creates one
   * only when its Frontend API is a development host (devBrowser.ts `setup`,
   * `isDevOrStagingUrl`). A production instance (`pk_live_…`) has none:
   * Clerk's spec gives `POST /v1/dev_browser` a 400, "The hostname is invalid."
   * A development one (`--development`) makes one (frontend/dev-browsers.ts).
   */
  const noDevBrowsers = () => {
    throw new ApiError(
      400,
      "host_invalid",
      "The hostname is invalid.",
      undefined,
      fapi.development
        ? "This development instance syncs sessions through the URL only: create a dev browser with POST /v1/dev_browser."
        : "Development browsers are only for development instances; this instance is a production one.",
    );
  };
  route("POST", "/v1/dev_browser", fapi.development ? () => newDevBrowser(fapi) : noDevBrowsers);
  route("POST", "/v1/dev_browser/set_first_party_cookie", noDevBrowsers);
  route("GET", "/v1/dev_browser/init", noDevBrowsers);

  /**
   * Where OAuth providers send the browser back. The instance has no OAuth
   * providers, so no sign-in ever started a flow whose `state` this could
   * finish: every callback is refused. A provider's POST (Apple's) is turned
   * into the GET, as Clerk does, on this Frontend API's own path.
   */
  route("GET", "/v1/oauth_callback", (req) => {
    if (!str(req.query.state))
      throw new ApiError(400, "form_param_missing", "state is missing", "state", "The OAuth callback has no state.");
    throw new ApiError(
      400,
      "form_param_value_invalid",
      "is invalid",
      "state",
      "No OAuth sign-in is waiting for this state: the instance has no OAuth providers.",
    );
  });
  route("POST", "/v1/oauth_callback", (req, res) => {
    const params = new URLSearchParams();
    for (const name of ["code", "scope", "state", "error"]) {
      const value = str(req.body?.[name]);
      if (value !== null) params.set(name, value);
    }
    res.setHeader("Cache-Control", "no-store");
    res.redirect(
      303,
      `${frontendApiPath(req, fapi.secretKey, fapi.mountPath).replace(/\/$/, "")}/v1/oauth_callback?${params}`,
    );
  });

  // Integration tokens (Firebase and the like): the instance has no integrations.
  route("POST", "/v1/me/tokens", (req) => {
    fapi.me(req);
    const service = str(req.body?.service);
    if (!service) throw new ApiError(422, "form_param_missing", "service is missing", "service");
    throw new ApiError(404, "resource_not_found", `The instance has no ${service} integration`, "service");
  });

  /**
   * An agent task's ticket (made with the Backend API's agent tasks, which the
   * emulator leaves out) signs its user in; no ticket is ever issued here, so
   * every one is unknown.
   */
  route("GET", "/v1/agents/tasks", (req) => {
    if (!str(req.query.ticket)) throw new ApiError(422, "form_param_missing", "ticket is missing", "ticket");
    throw new ApiError(404, "resource_not_found", "No such agent task", "ticket");
  });
}
