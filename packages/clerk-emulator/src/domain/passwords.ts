import { ApiError } from "./errors";
import { revokeSessionsOfUser } from "./sessions";
import { sessionTasks } from "./session-tasks";
import { ensureReverified } from "./session-verifications";
import { hashPassword, verifyPassword, type SessionRecord, type Store, type UserRecord } from "../state/store";

/** The instance's password rules (its environment says 8 to 72 characters). */
export function validateNewPassword(password: string | null, param = "password"): string {
  if (!password) throw new ApiError(422, "form_param_missing", "Enter a password.", param);
  if (password.length < 8) {
    throw new ApiError(422, "form_password_length_too_short", "Passwords must be 8 characters or more.", param);
  }
  if (password.length > 72) {
    throw new ApiError(422, "form_password_length_too_long", "Passwords must be 72 characters or fewer.", param);
  }
  return password;
}

/** The Backend API's answer for a password check or change on a user who has none. */
export const passwordNotSetError = () =>
  new ApiError(400, "password_not_set", "This user has no password.", undefined, "The user has no password set.");

/**
 * The person's own change on `session` (`POST /v1/me/change_password`): the current password first, when
 * they have one, unless the session's task is to reset it (a compromised password, which <TaskResetPassword/>
 * does not ask for) or the instance has reverification on (a fresh factor instead, Clerk's 403 until there is
 * one: <UserProfile/> shows no current-password field then); then the new one's rules. With `signOutOthers`, the
 * user's other sessions end.
 */
export function changePassword(
  store: Store,
  session: SessionRecord,
  user: UserRecord,
  { current, next, signOutOthers }: { current: string | null; next: string | null; signOutOthers: boolean },
): void {
  // Reverification on: a fresh factor stands for the current password (Clerk's 403 until there is one).
  ensureReverified(store, session, user);
  const reverifying = store.settings.instance.reverification;
  const resetting = sessionTasks(store, session).includes("reset-password");
  if (user.passwordHash && !resetting && !reverifying && (!current || !verifyPassword(current, user.passwordHash))) {
    throw new ApiError(422, "form_password_incorrect", "Password is incorrect. Try again.", "current_password");
  }
  const password = validateNewPassword(next, "new_password");
  store.write(() => {
    user.passwordHash = hashPassword(password);
    user.passwordUpdatedAt = Date.now();
    user.passwordCompromised = false;
    user.updatedAt = user.passwordUpdatedAt;
    if (signOutOthers) revokeSessionsOfUser(store, user, session.id);
  });
}

/**
 * A password set through the Backend API (checked unless `skipChecks`), no longer compromised; with
 * `signOut`, every session of the user's ends. The user's `updatedAt` is the caller's.
 */
export function setPassword(
  store: Store,
  user: UserRecord,
  password: string,
  { skipChecks = false, signOut = false } = {},
): void {
  const hash = hashPassword(skipChecks ? password : validateNewPassword(password));
  store.write(() => {
    user.passwordHash = hash;
    user.passwordUpdatedAt = Date.now();
    user.passwordCompromised = false;
    if (signOut) revokeSessionsOfUser(store, user);
  });
}

/** An admin takes the user's password away (Backend API; with `signOut`, their sessions too); without one, nothing changes. */
export function removePassword(store: Store, user: UserRecord, { signOut = false } = {}): UserRecord {
  if (!user.passwordHash) return user;
  return store.write(() => {
    user.passwordHash = null;
    user.passwordUpdatedAt = Date.now();
    user.passwordCompromised = false;
    if (signOut) revokeSessionsOfUser(store, user);
    user.updatedAt = Date.now();
    return user;
  });
}

/**
 * Removing the password (clerk-js's `user.removePassword`, on <UserProfile/>'s
 * Security page beside the second factors): Clerk's 400 when there is none,
 * 422 when the current one given is wrong.
 */
export function removeOwnPassword(store: Store, user: UserRecord, currentPassword: string | null): void {
  if (!user.passwordHash) {
    throw new ApiError(400, "no_password_set", "You have no password to remove.");
  }
  if (!currentPassword || !verifyPassword(currentPassword, user.passwordHash)) {
    throw new ApiError(422, "form_password_incorrect", "Password is incorrect. Try again.", "current_password");
  }
  store.write(() => {
    user.passwordHash = null;
    user.passwordUpdatedAt = null;
    user.updatedAt = Date.now();
  });
}

/** A compromised password no longer signs in (`form_password_compromised`); with `revokeSessions`, every session ends. */
export function markPasswordCompromised(store: Store, user: UserRecord, { revokeSessions = false } = {}): UserRecord {
  if (!user.passwordHash) throw passwordNotSetError();
  return store.write(() => {
    user.passwordCompromised = true;
    if (revokeSessions) revokeSessionsOfUser(store, user);
    user.updatedAt = Date.now();
    return user;
  });
}

export function clearPasswordCompromised(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    user.passwordCompromised = false;
    user.updatedAt = Date.now();
    return user;
  });
}
