import { newId } from "../state/ids";
import { ApiError } from "./errors";
import { markFactorVerified } from "./mfa";
import { beginInAnOrganization, organizationAsked } from "./session-tasks";
import type { ClientRecord, SessionActivity, SessionRecord, SessionStatus, Store, UserRecord } from "../state/store";

/**
 * A browser's client and its sessions as the Frontend API changes them:
 * the active organization and last activity (`touch`), signing out of one
 * session or all of them, forgetting the client, and the handshake's answer.
 */

type Ended = Exclude<SessionStatus, "active">;

/** The client changed at `at` (its `updated_at`, which `__client_uat` carries). */
export function touchClient(store: Store, client: ClientRecord, at = Date.now()): void {
  store.write(() => {
    client.updatedAt = at;
  });
}

/** An active session ends (`ended` or `removed`); one that is over already stays as it was. */
export function endSession(store: Store, session: SessionRecord, status: Ended): void {
  if (session.status === "active") store.write(() => store.endSession(session, status));
}

/** Every active session of the client ends (signing out of all of them). */
export function endClientSessions(store: Store, client: ClientRecord, status: Ended): void {
  const active = store.activeSessions(client);
  if (active.length === 0) return;
  store.write(() => {
    for (const s of active) store.endSession(s, status);
  });
}

/** The browser's client is forgotten, its active sessions ended first. */
export function removeClient(store: Store, client: ClientRecord): void {
  store.write((state) => {
    for (const s of store.activeSessions(client)) store.endSession(s, "ended");
    state.clients = state.clients.filter((c) => c !== client);
  });
}

/** Revokes every active session of the user but the one `exceptSessionId` names (the device asking): a ban, a new password. */
export function revokeSessionsOfUser(store: Store, user: UserRecord, exceptSessionId: string | null = null): void {
  store.write((state) => {
    for (const s of state.sessions) {
      if (s.userId === user.id && s.id !== exceptSessionId && s.status === "active") store.endSession(s, "revoked");
    }
  });
}

/** One of the person's own sessions, signed out from their devices list; Clerk's 404 for anyone else's. */
export function revokeOwnSession(store: Store, user: UserRecord, sessionId: string): SessionRecord {
  const target = store.session(sessionId);
  if (!target || target.userId !== user.id) throw new ApiError(404, "resource_not_found", "Session not found");
  if (target.status === "active") store.write(() => store.endSession(target, "revoked"));
  return target;
}

/**
 * Whether the client may begin a sign-in or a sign-up. A single-session instance (Clerk's default,
 * `auth_config.single_session_mode`) refuses one on a client that has an active session, before
 * anything else (HTTP 400, `session_exists`): clerk-js's <SignIn/> then activates that session
 * instead. `meta` is the answer's own meta (the Frontend API puts the client there). A multi-session
 * instance lets the client add another account.
 */
export function refuseIfSingleSessionSignedIn(
  store: Store,
  client: ClientRecord | null,
  meta: () => Record<string, unknown>,
): void {
  if (!store.settings.instance.singleSessionMode) return;
  if (client && store.activeSessions(client).length > 0) {
    throw new ApiError(
      400,
      "session_exists",
      "Session already exists",
      undefined,
      "You're currently in single session mode. You can only be signed into one account at a time.",
      meta(),
    );
  }
}

/**
 * On a multi-session instance, signing in as someone the client is already signed in as is Clerk's 400
 * `identifier_already_signed_in`, naming that session (`meta.session_id`): clerk-js's <SignIn/>
 * activates it instead of starting a second one. `meta` is the answer's own meta (the Frontend API
 * puts the client there: a tab opened before that sign-in learns of the session from it).
 */
export function refuseSignedInAgain(
  store: Store,
  client: ClientRecord,
  userId: string,
  meta: () => Record<string, unknown>,
): void {
  const session = store.activeSessions(client).find((s) => s.userId === userId);
  if (!session) return;
  throw new ApiError(
    400,
    "identifier_already_signed_in",
    "You're already signed in",
    undefined,
    "You're already signed in with this account on this browser.",
    meta(),
    { session_id: session.id },
  );
}

/**
 * A sign-in's end: the user's new session on the client, its second factor verified now when the
 * sign-in took one. On a single-session instance it replaces any earlier one; on a multi-session one
 * the others stay, and the new one is the client's last active session.
 */
export function startSession(
  store: Store,
  client: ClientRecord,
  userId: string,
  { lifetimeMs, activity, secondFactor }: { lifetimeMs: number; activity: SessionActivity; secondFactor: boolean },
): SessionRecord {
  return store.write(() => {
    if (store.settings.instance.singleSessionMode) {
      for (const s of store.activeSessions(client)) store.endSession(s, "removed");
    }
    const session = store.createSession(client, userId, lifetimeMs, activity);
    if (secondFactor) markFactorVerified(session, "second", session.createdAt);
    if (store.user(userId)?.passwordCompromised) session.beganCompromised = true;
    beginInAnOrganization(store, session);
    return session;
  });
}

/**
 * The session is in use (`touch`): its last activity is now, it is the client's
 * last active one, and, when `orgId` is given (null for none), its active
 * organization is that one, which must be one of the user's (else Clerk's 404).
 * Choosing one resolves the session's `choose-organization` task; asking for
 * none where the instance forces an organization keeps the one it has.
 */
export function touchSession(
  store: Store,
  client: ClientRecord | null,
  session: SessionRecord,
  requested: string | null | undefined,
): void {
  if (session.status !== "active") throw new ApiError(401, "signed_out", "You are signed out");
  const orgId = organizationAsked(store, requested);
  if (orgId && !store.membership(orgId, session.userId)) {
    throw new ApiError(404, "resource_not_found", "Organization not found", "active_organization_id");
  }
  store.write(() => {
    if (orgId !== undefined) session.lastActiveOrganizationId = orgId;
    session.lastActiveAt = Date.now();
    session.updatedAt = session.lastActiveAt;
    if (client) {
      client.lastActiveSessionId = session.id;
      client.updatedAt = session.updatedAt;
    }
  });
}

/**
 * The handshake's answer (the cookies to set), kept a minute under a new nonce
 * for @clerk/backend to fetch (`GET /v1/clients/handshake_payload`). Lapsed ones
 * are forgotten.
 */
export function saveHandshake(store: Store, directives: string[]): string {
  const nonce = newId("hsn", 32);
  store.write((state) => {
    state.handshakes = state.handshakes.filter((h) => h.expiresAt > Date.now());
    state.handshakes.push({ nonce, directives, expiresAt: Date.now() + 60_000 });
  });
  return nonce;
}
