import { newId } from "../state/ids";
import { ticketUrl } from "./invitations";
import { ApiError } from "./errors";
import { newTicket, type ActorTokenRecord, type Metadata, type SessionRecord, type Store } from "../state/store";

/** Clerk's defaults: the link lasts an hour, the session it makes half an hour. */
export const ACTOR_TOKEN_TTL_SECONDS = 3_600;
export const ACTOR_SESSION_SECONDS = 1_800;

export function createActorToken(
  store: Store,
  input: { userId: string; actor: Metadata; expiresInSeconds: number; sessionMaxDurationSeconds: number },
): ActorTokenRecord {
  const t = Date.now();
  const record: ActorTokenRecord = {
    id: newId("act"),
    userId: input.userId,
    actor: input.actor,
    ticket: newTicket(),
    status: "pending",
    expiresAt: t + input.expiresInSeconds * 1000,
    sessionMaxDurationMs: input.sessionMaxDurationSeconds * 1000,
    createdAt: t,
    updatedAt: t,
  };
  store.write((state) => state.actorTokens.push(record));
  return record;
}

export function revokeActorToken(store: Store, id: string): ActorTokenRecord {
  const record = store.find("actorTokens", (a) => a.id === id);
  if (!record) throw new ApiError(404, "resource_not_found", "Actor token not found");
  if (record.status !== "pending") {
    throw new ApiError(
      400,
      "actor_token_cannot_be_revoked",
      `Actor token cannot be revoked because its status is ${record.status}. Only pending tokens can be revoked.`,
    );
  }
  return store.write(() => Object.assign(record, { status: "revoked" as const, updatedAt: Date.now() }));
}

/**
 * The actor token a sign-in ticket is, ready to use, or Clerk's error for
 * one that is spent, revoked or expired; null when the ticket is not an
 * actor token's (an invitation's or a sign-in token's, which
 * domain/invitations.ts reads).
 */
export function usableActorToken(store: Store, ticket: string | null): ActorTokenRecord | null {
  const record = ticket ? store.find("actorTokens", (a) => a.ticket === ticket) : null;
  if (!record) return null;
  if (record.status !== "pending") {
    throw new ApiError(400, "ticket_invalid_code", "This link has already been used or was revoked.");
  }
  if (record.expiresAt <= Date.now()) {
    throw new ApiError(400, "ticket_expired_code", "This link has expired. Ask for a new one.");
  }
  if (!store.user(record.userId))
    throw new ApiError(400, "ticket_invalid_code", "This link is not valid. Ask for a new one.");
  return record;
}

/**
 * A session signed in with an actor token is the actor's, as the user: its
 * JSON shows `actor`, its tokens carry it as `act`, and it lasts no longer
 * than the token's `session_max_duration_in_seconds`. The token is spent.
 */
export function startImpersonation(store: Store, session: SessionRecord, record: ActorTokenRecord): void {
  store.write(() => {
    session.actor = record.actor;
    session.expireAt = Math.min(session.expireAt, session.createdAt + record.sessionMaxDurationMs);
    record.status = "accepted";
    record.updatedAt = Date.now();
  });
}

export function actorTokenJSON(record: ActorTokenRecord, frontendApiUrl: string) {
  return {
    object: "actor_token",
    id: record.id,
    status: record.status,
    user_id: record.userId,
    actor: record.actor,
    token: record.ticket,
    url: ticketUrl(frontendApiUrl, record.ticket),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
