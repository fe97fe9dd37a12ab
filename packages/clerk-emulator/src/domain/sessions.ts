import { newId } from "../state/ids";
import { ApiError } from "./errors";
import type { ClientRecord, SessionRecord, SessionStatus, Store } from "../state/store";

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

/** Every active session of the user is revoked (a new password signs them out everywhere, when asked). */
export function revokeUserSessions(store: Store, userId: string): void {
  store.write((state) => {
    for (const s of state.sessions) {
      if (s.userId === userId && s.status === "active") store.endSession(s, "revoked");
    }
  });
}

/**
 * The session is in use (`touch`): its last activity is now, it is the client's
 * last active one, and, when `orgId` is given (null for none), its active
 * organization is that one, which must be one of the user's (else Clerk's 404).
 */
export function touchSession(
  store: Store,
  client: ClientRecord | null,
  session: SessionRecord,
  orgId: string | null | undefined,
): void {
  if (session.status !== "active") throw new ApiError(401, "signed_out", "You are signed out");
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
