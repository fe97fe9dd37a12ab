import { ApiError } from "./errors";
import type { SessionRecord, Store, UserRecord } from "../state/store";

/** A user's sessions as their account's changes end them (a ban, a new password, their own sign-out of a device). */

/** Revokes every active session of the user, but the one `exceptSessionId` names (the device asking). */
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
