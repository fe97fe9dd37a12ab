import express, { type Router } from "express";
import { startSessionOnNewClient } from "../domain/clients";
import { attachClient, createDevBrowser, DEV_BROWSER_PARAM } from "../domain/dev-browsers";
import { changeDashboardSettings, dashboardSettingsJSON, DashboardSettingsError } from "../domain/dashboard-settings";
import { expireInvitationNow } from "../domain/invitations";
import { createMembershipRequest } from "../domain/membership-requests";
import { mintSessionToken } from "../domain/session-tokens";
import type { TokenSettings } from "../domain/tokens";
import { activityOf } from "../http/activity";
import type { Faults, FaultMode } from "../http/faults";
import { proxyHeadersOf } from "../http/proxy";
import type { RateLimiter } from "../http/rate-limits";
import { ApiError } from "../domain/errors";
import { sendJson, str } from "../http/routing";
import type { Metadata } from "../state/records";
import type { Store } from "../state/store";
import type { WebhookSender } from "../webhooks/delivery";

export type ControlApiOptions = {
  store: Store;
  faults: Faults;
  rateLimiter: RateLimiter;
  webhooks: WebhookSender | null;
  /** Where the Frontend API is mounted on the app's origin: the path of the `__client` cookie. */
  mountPath: string;
  /** The same settings the Frontend API mints with: a ready-made session's token is one clerk-js would get. */
  tokens: TokenSettings;
  /** A development instance: a ready-made session's browser is a dev browser (`__clerk_db_jwt`), not `__client`. */
  development?: boolean;
};

const FAULT_MODES: FaultMode[] = ["error", "hang", "slow", "reset"];

const notFound = (res: express.Response, what: string) =>
  sendJson(res, 404, new ApiError(404, "resource_not_found", `No such ${what}`).toJSON());

/**
 * The control API hands out every user, every `__client` id and pending
 * tokens, and mints a session for anyone: it answers a test that calls the
 * emulator (or the app that mounts it) straight, never a request that came
 * through a proxy. A proxy in front (the app's `/__clerk` rule in nginx, Vite
 * or Express) means the asker may be anyone who reaches that proxy, and it
 * rewrites `Host`, so the hosts' `Host` checks cannot tell.
 */
const directRequestsOnly: express.RequestHandler = (req, res, next) => {
  const found = proxyHeadersOf(req);
  if (found.length === 0) return next();
  refuseProxiedControl(
    res,
    "The control API answers only requests sent straight to the emulator, never through a proxy",
    `This request came through a proxy (it carries ${found.join(", ")}). The control API (/_emulator/…) is for tests only: call the emulator's own address from the test, and keep /__clerk/_emulator/… out of the proxy's rules (GUIDE.md).`,
  );
};

/** The control API's 403 for a request that came through a proxy (here, or in a host's own check). */
export function refuseProxiedControl(res: express.Response, message: string, longMessage: string): void {
  sendJson(res, 403, new ApiError(403, "control_api_direct_only", message, undefined, longMessage).toJSON());
}

/**
 * The control API for tests (`/_emulator/…`): reset, faults, call counts,
 * the state, and ready-made sessions. Never Clerk's: mount it only where
 * tests run, behind a cross-site check. It refuses proxied requests itself,
 * wherever it is mounted.
 */
export function createControlApi(options: ControlApiOptions): Router {
  const { store, faults, rateLimiter, webhooks } = options;
  // What the instance's switches were at start (--instance): a reset brings them back.
  const startSwitches = { ...store.settings.instance };
  const control = express.Router();
  // First, before the body is read: a proxied request gets this refusal, never a parse error.
  control.use(directRequestsOnly);
  control.use(express.json({ limit: "16kb" }));
  control.post("/reset", (_req, res) => {
    store.reset();
    changeDashboardSettings(store.settings.instance, dashboardSettingsJSON(startSwitches));
    faults.clear();
    rateLimiter.reset();
    sendJson(res, 200, { ok: true });
  });
  control.post("/faults", (req, res) => {
    const endpoint = str(req.body?.endpoint);
    const mode = str(req.body?.mode) as FaultMode;
    if (!endpoint || !FAULT_MODES.includes(mode)) {
      return sendJson(
        res,
        400,
        new ApiError(400, "invalid", "endpoint and mode (error|hang|slow|reset) are required").toJSON(),
      );
    }
    sendJson(res, 200, faults.arm({ ...req.body, endpoint, mode }));
  });
  control.delete("/faults", (_req, res) => {
    faults.clear();
    sendJson(res, 200, { ok: true });
  });
  control.get("/calls", (_req, res) => sendJson(res, 200, faults.calls()));
  // Calls the rate limits answered 429 (CLERK_EMULATOR_RATE_LIMITS), per API.
  control.get("/rate-limited", (_req, res) => sendJson(res, 200, rateLimiter.refused()));
  // The webhooks sent lately (newest last): their ids, types, attempts and whether they were accepted.
  control.get("/webhooks", (_req, res) => sendJson(res, 200, webhooks?.deliveries() ?? []));
  // What the emulator holds (organizations, memberships, invitations…), for tests to check writes.
  control.get("/state", (_req, res) =>
    sendJson(res, 200, { ...store.state, users: store.state.users.map(({ passwordHash: _, ...user }) => user) }),
  );
  // Clerk's invitations last 30 days; tests make one expire now.
  control.post("/invitations/:id/expire", (req, res) => {
    const invitation = store.state.invitations.find((i) => i.id === req.params.id);
    if (!invitation) return notFound(res, "invitation");
    expireInvitationNow(store, invitation);
    sendJson(res, 200, { ok: true });
  });
  // Someone asking to join an organization, as Clerk makes it from a verified domain: for tests of accepting and rejecting.
  control.post("/membership_requests", (req, res) => {
    const org = store.org(str(req.body?.organizationId) ?? "");
    if (!org) return notFound(res, "organization");
    try {
      const request = createMembershipRequest(store, org, str(req.body?.userId) ?? "");
      sendJson(res, 200, { id: request.id, status: request.status });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      sendJson(res, error.status, error.toJSON());
    }
  });
  // The dashboard's switches (multi-session, legal consent, sign-up mode), in the environment JSON's keys as
  // --instance takes them: a PATCH sets those it names, for this process, and answers them all.
  control.get("/instance", (_req, res) => sendJson(res, 200, dashboardSettingsJSON(store.settings.instance)));
  control.patch("/instance", (req, res) => {
    try {
      changeDashboardSettings(store.settings.instance, req.body);
    } catch (error) {
      if (!(error instanceof DashboardSettingsError)) throw error;
      return sendJson(res, 422, new ApiError(422, "form_param_value_invalid", error.message).toJSON());
    }
    sendJson(res, 200, dashboardSettingsJSON(store.settings.instance));
  });
  control.post("/sessions", readySession(options));
  return control;
}

/** A new dev browser whose client is `client`: its id, what clerk-js keeps in `__clerk_db_jwt`. */
function devBrowserFor(store: Store, client: { id: string }): string {
  const devBrowser = createDevBrowser(store);
  attachClient(store, devBrowser, client);
  return devBrowser.id;
}

/**
 * A signed-in browser without going through the sign-in screens: the cookies
 * a real sign-in would leave, for tests and demos. Its token is minted by the
 * Frontend API's minter, so it carries what clerk-js's would (`fva`, `act`).
 */
function readySession(options: ControlApiOptions): express.RequestHandler {
  const { store } = options;
  return (req, res) => {
    const user = store.user(str(req.body?.userId) ?? "") ?? store.userByEmail(str(req.body?.email) ?? "");
    if (!user) return notFound(res, "user");
    const actor: unknown = req.body?.actor;
    if (
      actor !== undefined &&
      (typeof actor !== "object" || actor === null || typeof (actor as Metadata).sub !== "string")
    )
      return sendJson(res, 400, new ApiError(400, "invalid", "actor: an object with at least sub").toJSON());
    // The device the session is on, as the devices list shows it: the browser's user agent if the test gives one.
    const userAgent = str(req.body?.userAgent);
    if (userAgent) req.headers["user-agent"] = userAgent;
    // An organization the user is not a member of is left out, not refused.
    const orgId = str(req.body?.organizationId);
    const session = startSessionOnNewClient(store, {
      userId: user.id,
      activeOrganizationId: orgId && store.membership(orgId, user.id) ? orgId : null,
      lifetimeMs: options.tokens.sessionLifetimeMs,
      activity: activityOf(req),
      actor: actor as Metadata | undefined,
    });
    const client = store.client(session.clientId)!;
    const browserCookie = options.development
      ? { name: DEV_BROWSER_PARAM, value: devBrowserFor(store, client), path: "/", httpOnly: false, sameSite: "Lax" }
      : { name: "__client", value: client.id, path: options.mountPath, httpOnly: true, sameSite: "Lax" };
    const jwt = mintSessionToken(store, options.tokens, session);
    const clientUat = Math.floor(client.updatedAt / 1000);
    sendJson(res, 200, {
      userId: user.id,
      sessionId: session.id,
      clientId: client.id,
      sessionToken: jwt,
      clientUat,
      // What a real sign-in leaves in the browser, ready for Playwright's `context.addCookies` (add `url` or `domain`):
      // clerk-js finds its client through `__client` on the emulator's path (on a development instance, through
      // the dev browser its own `__clerk_db_jwt` cookie keeps), the app's server reads the other two.
      cookies: [
        browserCookie,
        { name: "__client_uat", value: String(clientUat), path: "/", httpOnly: false, sameSite: "Lax" },
        { name: "__session", value: jwt, path: "/", httpOnly: false, sameSite: "Lax" },
      ],
    });
  };
}
