import type { Request, Response } from "express";
import type { Faults } from "../http/faults";
import { clientJSON } from "../json";
import { newClient } from "../domain/clients";
import {
  attachClient,
  DEV_BROWSER_PARAM,
  devBrowserUnauthenticated,
  findDevBrowser,
  LEGACY_DEV_BROWSER_PARAM,
} from "../domain/dev-browsers";
import { refuseIfSingleSessionSignedIn, startSession } from "../domain/sessions";
import { isTestingToken } from "../domain/testing-tokens";
import { ensureReverified } from "../domain/session-verifications";
import { frontendApiPath } from "../http/proxy";
import { ApiError } from "../domain/errors";
import { activityOf } from "../http/activity";
import { str } from "../http/routing";
import type { ClientRecord, SessionRecord, Store, UserRecord } from "../state/store";
import { mintSessionToken } from "../domain/session-tokens";
import type { TokenSettings } from "../domain/tokens";

export type FrontendApiOptions = {
  store: Store;
  /** What session tokens and JWT templates' tokens are minted with: the Backend and control APIs get the same. */
  tokens: TokenSettings;
  faults: Faults;
  /** Where the emulator is mounted on the app's origin, e.g. "/__clerk". */
  mountPath: string;
  /** The instance's secret key: a proxy proves itself with it (`Clerk-Secret-Key`). */
  secretKey: string;
  /** Origins the handshake may send the browser back to (Clerk's "allowed origins"), e.g. `http://localhost:3000`. */
  allowedOrigins: readonly string[];
  /** Where browsers reach the Frontend API, for the links in the emails Clerk sends (invitations). */
  frontendApiUrl: (req: Request) => string;
  /** A development instance: the browser's client is its dev browser's (`__clerk_db_jwt`), not `__client`'s. */
  development: boolean;
};

export const CLIENT_COOKIE = "__client";

function readCookie(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

/**
 * What every part of the Frontend API shares: the browser's client (the
 * `__client` cookie, or on a development instance its dev browser), its
 * signed-in session and user, session tokens, and the `{response, client}`
 * envelope clerk-js reads.
 */
export function createFrontendContext(options: FrontendApiOptions) {
  const { store, mountPath } = options;

  const mintToken = (req: Request, session: SessionRecord, orgId?: string | null) =>
    mintSessionToken(store, options.tokens, session, { orgId, azp: req.get("origin") ?? undefined });

  // Behind a proxy the browser sees the Frontend API on the proxy's path (`Clerk-Proxy-Url`), not ours.
  const cookiePath = (req: Request) => frontendApiPath(req, options.secretKey, mountPath);
  const clientCookieOptions = (req: Request) =>
    `Path=${cookiePath(req)}; HttpOnly; SameSite=Lax; Max-Age=31536000${req.secure ? "; Secure" : ""}`;

  /** `__client_uat` tells the app's server whether this browser has a signed-in client (0 = no). */
  const setClientCookies = (req: Request, res: Response, client: ClientRecord | null) => {
    const signedIn = client ? store.activeSessions(client).length > 0 : false;
    const uat = signedIn && client ? Math.floor(client.updatedAt / 1000) : 0;
    const secure = req.secure ? "; Secure" : "";
    res.append("Set-Cookie", `__client_uat=${uat}; Path=/; SameSite=Lax; Max-Age=31536000${secure}`);
    // A development instance's browser keeps its client through its dev browser, never a `__client` cookie.
    if (options.development) return;
    if (client) res.append("Set-Cookie", `${CLIENT_COOKIE}=${client.id}; ${clientCookieOptions(req)}`);
    else res.append("Set-Cookie", `${CLIENT_COOKIE}=; Path=${cookiePath(req)}; HttpOnly; SameSite=Lax; Max-Age=0`);
  };

  /**
   * The dev browser a development instance's request names (the `__clerk_db_jwt` query parameter,
   * as clerk-js sends it, or its older name `__dev_session`): Clerk's 401 `dev_browser_unauthenticated`
   * when it names none the emulator made, or is missing (clerk-js then makes a new one and tries again).
   */
  const devBrowserOf = (req: Request) => {
    const given = str(req.query[DEV_BROWSER_PARAM]) ?? str(req.query[LEGACY_DEV_BROWSER_PARAM]);
    const devBrowser = findDevBrowser(store, options.tokens.key, given);
    if (!devBrowser) throw devBrowserUnauthenticated();
    return devBrowser;
  };

  const currentClient = (req: Request): ClientRecord | null => {
    const id = options.development ? devBrowserOf(req).clientId : readCookie(req, CLIENT_COOKIE);
    return id ? store.client(id) : null;
  };

  const ensureClient = (req: Request, res: Response): ClientRecord => {
    const existing = currentClient(req);
    if (existing) return existing;
    const client = newClient(store);
    if (options.development) attachClient(store, devBrowserOf(req), client);
    else res.append("Set-Cookie", `${CLIENT_COOKIE}=${client.id}; ${clientCookieOptions(req)}`);
    return client;
  };

  /** Clerk's test helpers add a testing token to every Frontend API call; a valid one sets `captcha_bypass`. */
  const carriesTestingToken = (req: Request) => isTestingToken(store, str(req.query.__clerk_testing_token));

  const clientPayload = (req: Request, client: ClientRecord | null) =>
    client ? clientJSON(store, client, (s) => mintToken(req, s), carriesTestingToken(req)) : null;

  /** `{response, client}`: clerk-js updates its client from every answer of this shape. */
  const envelope = (req: Request, res: Response, client: ClientRecord | null, response: unknown) => {
    if (req.method !== "GET") setClientCookies(req, res, client);
    return { response, client: clientPayload(req, client) };
  };

  const sessionOfClient = (client: ClientRecord | null, id: string | undefined): SessionRecord => {
    const session = id ? store.session(id) : null;
    if (!client || !session || session.clientId !== client.id) {
      throw new ApiError(404, "resource_not_found", "Session not found");
    }
    return session;
  };

  const activeSession = (req: Request): SessionRecord => {
    const client = currentClient(req);
    if (!client) throw new ApiError(401, "signed_out", "You are signed out");
    const wanted = str(req.query._clerk_session_id) ?? client.lastActiveSessionId;
    const session = store.activeSessions(client).find((s) => s.id === wanted);
    if (!session) throw new ApiError(401, "signed_out", "You are signed out");
    return session;
  };

  /** The signed-in person, or Clerk's 401. */
  const me = (req: Request): { session: SessionRecord; user: UserRecord } => {
    const session = activeSession(req);
    const user = store.user(session.userId);
    if (!user) throw new ApiError(404, "resource_not_found", "User not found");
    return { session, user };
  };

  /**
   * The signed-in person, for a sensitive change of their own account: Clerk's 403
   * `session_reverification_required` first, where the instance wants a fresh factor for it
   * (domain/session-verifications.ts).
   */
  const meReverified = (req: Request): { session: SessionRecord; user: UserRecord } => {
    const found = me(req);
    ensureReverified(store, found.session, found.user);
    return found;
  };

  /** Answers with the signed-in person's client around `response`. */
  const reply = (req: Request, res: Response, response: unknown) => envelope(req, res, currentClient(req), response);

  /** An error answer's meta naming the client, for the domain's refusals that carry it. */
  const clientMeta = (req: Request, client: ClientRecord | null) => () => ({ client: clientPayload(req, client) });

  /**
   * A single-session instance refuses a sign-in or a sign-up on a signed-in client (domain/sessions.ts).
   * The answer carries the client in `meta.client`, as Clerk's error answers do: a tab opened before
   * the sign-in elsewhere learns of the session from it (clerk-js's `getClientResourceFromPayload`).
   */
  const refuseIfSignedIn = (req: Request) => {
    const client = currentClient(req);
    refuseIfSingleSessionSignedIn(store, client, clientMeta(req, client));
  };

  /** `secondFactor`: the sign-in verified one too (the session's `fva` counts from now for both). */
  const finishSignIn = (req: Request, client: ClientRecord, userId: string, secondFactor = false) =>
    startSession(store, client, userId, {
      lifetimeMs: options.tokens.sessionLifetimeMs,
      activity: activityOf(req),
      secondFactor,
    });

  return {
    ...options,
    mintToken,
    setClientCookies,
    currentClient,
    ensureClient,
    clientPayload,
    envelope,
    reply,
    sessionOfClient,
    activeSession,
    me,
    meReverified,
    refuseIfSignedIn,
    clientMeta,
    finishSignIn,
  };
}

export type FrontendContext = ReturnType<typeof createFrontendContext>;
export type { Route } from "../http/routing";
