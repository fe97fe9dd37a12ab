import type { Request, Response } from "express";
import { instanceOrigins } from "../domain/instance-origins";
import { environmentJSON } from "../json/environment";
import { sessionJSON } from "../json";
import { redirectAllowed } from "../http/proxy";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { endClientSessions, endSession, removeClient, saveHandshake, touchSession } from "../domain/sessions";
import type { FrontendContext, Route } from "./context";
import { templateTokenForRequest } from "./template-tokens";
import { handshakeDevBrowser } from "./dev-browsers";
import { DEV_BROWSER_PARAM } from "../domain/dev-browsers";

/** The instance's settings, the browser's client, and the handshake @clerk/backend sends documents through. */
export function registerClientRoutes(route: Route, fapi: FrontendContext): void {
  const { store, currentClient, ensureClient, clientPayload, envelope, setClientCookies, mintToken } = fapi;

  const environment = () =>
    environmentJSON(
      { ...store.settings, development: fapi.development },
      store.state.instance,
      store.state.restrictions,
    );
  route("GET", "/v1/environment", environment);
  route("PATCH", "/v1/environment", environment);

  // A development instance's new dev browser gets its client on this first read, as Clerk's do (Clerk's
  // own last-authentication-strategy spec reads `response.last_authentication_strategy` with no null check).
  // A production browser without a `__client` cookie gets none until it writes (a sign-in, `POST /v1/client`).
  route("GET", "/v1/client", (req, res) => {
    const client = fapi.development ? ensureClient(req, res) : currentClient(req);
    return { response: clientPayload(req, client), client: null };
  });

  const createClient = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    return envelope(req, res, client, clientPayload(req, client));
  };
  route("POST", "/v1/client", createClient);
  route("PUT", "/v1/client", createClient);

  route("DELETE", "/v1/client", (req, res) => {
    const client = currentClient(req);
    if (client) removeClient(store, client);
    setClientCookies(req, res, null);
    return { response: null, client: null };
  });

  route("DELETE", "/v1/client/sessions", (req, res) => {
    const client = ensureClient(req, res);
    endClientSessions(store, client, "removed");
    return envelope(req, res, client, clientPayload(req, client));
  });

  // Handshake: @clerk/backend sends document requests here when the session
  // token has expired; we mint a fresh one and send the browser back.
  route("GET", "/v1/client/handshake", (req, res) => {
    const redirectUrl = str(req.query.redirect_url);
    let target: URL;
    try {
      target = new URL(redirectUrl ?? "");
    } catch {
      throw new ApiError(400, "form_param_format_invalid", "redirect_url must be an absolute URL", "redirect_url");
    }
    // Clerk sends the browser back only to the instance's allowed origins (or the proxy's, or its own).
    // The instance's own allowed origins, satellite domains and redirect URLs count too (backend/domains.ts).
    if (!redirectAllowed(req, target, [...fapi.allowedOrigins, ...instanceOrigins(store)], fapi.secretKey))
      throw new ApiError(
        400,
        "form_param_value_invalid",
        "redirect_url must be on one of the instance's allowed origins",
        "redirect_url",
      );

    // A development instance's browser is its dev browser, which the handshake hands to the app in its cookie.
    const devBrowser = fapi.development ? handshakeDevBrowser(fapi, req) : null;
    const client = devBrowser ? (devBrowser.clientId ? store.client(devBrowser.clientId) : null) : currentClient(req);
    const session = client ? store.activeSessions(client).find((s) => s.id === client.lastActiveSessionId) : undefined;
    const secure = req.secure ? "; Secure" : "";
    const directives = session
      ? [
          `__session=${mintToken(req, session)}; Path=/; SameSite=Lax${secure}`,
          `__client_uat=${Math.floor((client?.updatedAt ?? Date.now()) / 1000)}; Path=/; SameSite=Lax; Max-Age=31536000${secure}`,
        ]
      : [
          `__session=; Path=/; SameSite=Lax; Max-Age=0${secure}`,
          `__client_uat=0; Path=/; SameSite=Lax; Max-Age=31536000${secure}`,
        ];
    if (devBrowser) {
      // Not HttpOnly: clerk-js reads it (and then sends it with every Frontend API call).
      directives.push(`${DEV_BROWSER_PARAM}=${devBrowser.id}; Path=/; SameSite=Lax; Max-Age=31536000${secure}`);
      target.searchParams.set(DEV_BROWSER_PARAM, devBrowser.id);
    }
    const nonce = saveHandshake(store, directives);
    target.searchParams.set("__clerk_handshake_nonce", nonce);
    res.setHeader("Cache-Control", "no-store");
    res.redirect(307, target.toString());
  });

  // The handshake is a GET only: Clerk's OpenAPI lists no other method, and Clerk's Frontend API
  // answers a POST with 405 (clerk/javascript PR #8045: @clerk/backend 2.x sends an expired-token
  // form POST there with a 307, "resulting in a 405 Method Not Allowed error"). See GUIDE.md.
  route("POST", "/v1/client/handshake", (_req, res) => {
    res.setHeader("Allow", "GET");
    throw new ApiError(405, "method_not_allowed", "The handshake accepts GET requests only.");
  });
}

/** A client's sessions: tokens, the active organization (`touch`), signing out of one. */
export function registerSessionRoutes(route: Route, fapi: FrontendContext): void {
  const { store, currentClient, sessionOfClient, envelope, mintToken } = fapi;

  const mintForRequest = (req: Request, res: Response) => {
    const session = sessionOfClient(currentClient(req), req.params.id);
    if (session.status !== "active" || session.expireAt <= Date.now()) {
      throw new ApiError(401, "signed_out", "You are signed out");
    }
    const raw = req.body?.organization_id;
    const orgId = raw === undefined ? undefined : str(raw) || null;
    res.setHeader("Cache-Control", "no-store");
    return { object: "token", jwt: mintToken(req, session, orgId) };
  };
  route("POST", "/v1/client/sessions/:id/tokens", mintForRequest);
  route("POST", "/v1/client/sessions/:id/tokens/:template", (req, res) => templateTokenForRequest(fapi, req, res));

  // One of the browser's sessions, whatever its status, with its newest token while it is active.
  route("GET", "/v1/client/sessions/:id", (req, res) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    const active = session.status === "active" && session.expireAt > Date.now();
    return envelope(req, res, client, sessionJSON(store, session, active ? mintToken(req, session) : null));
  });

  route("POST", "/v1/client/sessions/:id/touch", (req, res) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    const requested = req.body?.active_organization_id;
    touchSession(store, client, session, requested === undefined ? undefined : str(requested) || null);
    return envelope(req, res, client, sessionJSON(store, session, mintToken(req, session)));
  });

  const signOut = (status: "ended" | "removed") => (req: Request, res: Response) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    endSession(store, session, status);
    return envelope(req, res, client, sessionJSON(store, session, null));
  };
  route("POST", "/v1/client/sessions/:id/end", signOut("ended"));
  route("POST", "/v1/client/sessions/:id/remove", signOut("removed"));
}
