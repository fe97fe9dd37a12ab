import { ApiError } from "./errors";
import { revokeSessionsOfUser } from "./sessions";
import { newId } from "../state/ids";
import type { IdentifierRecord, RestrictionsRecord, Store, UserRecord } from "../state/store";

/**
 * Who may sign in and sign up: bans, account lockout, compromised passwords
 * (per user, set through the Backend API) and the instance's restrictions
 * (allow-list, block-list, email subaddresses, disposable domains). The
 * Frontend API's sign-in and sign-up ask here before they let anyone in.
 */

/** Clerk's account lockout defaults: 100 failed attempts lock the account for an hour. */
export const MAX_VERIFICATION_ATTEMPTS = 100;
export const LOCKOUT_SECONDS = 3600;

/** Seconds until the user's lock lapses, or null when they are not locked. */
export function lockoutRemainingSeconds(user: UserRecord, now = Date.now()): number | null {
  if (!user.lockedAt) return null;
  const left = Math.ceil((user.lockedAt + LOCKOUT_SECONDS * 1000 - now) / 1000);
  return left > 0 ? left : null;
}

/** Failed attempts that still count: a lapsed lock starts the count afresh. */
function countingAttempts(user: UserRecord): number {
  if (user.lockedAt && lockoutRemainingSeconds(user) === null) return 0;
  return user.failedAttempts ?? 0;
}

export function verificationAttemptsRemaining(user: UserRecord): number {
  return Math.max(0, MAX_VERIFICATION_ATTEMPTS - countingAttempts(user));
}

/** Locks the user from now (inside a change that is already being made, such as a user's creation). */
export function lockUser(user: UserRecord): void {
  user.lockedAt = Date.now();
}

/** Locked through the Backend API: for the instance's lockout duration (an hour, Clerk's default); sessions stay. */
export function lockAccount(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    lockUser(user);
    user.updatedAt = Date.now();
    return user;
  });
}

/** Unlocked through the Backend API: the failed attempts count afresh. */
export function unlockAccount(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    user.lockedAt = null;
    user.failedAttempts = 0;
    user.updatedAt = Date.now();
    return user;
  });
}

/** A banned user's sessions are revoked at once, and no sign-in lets them in again (refuseBarredUser). */
export function banUser(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    user.banned = true;
    revokeSessionsOfUser(store, user);
    user.updatedAt = Date.now();
    return user;
  });
}

export function unbanUser(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    user.banned = false;
    user.updatedAt = Date.now();
    return user;
  });
}

/** A wrong password or code: the hundredth locks the account, as Clerk's lockout does. */
export function recordFailedAttempt(store: Store, user: UserRecord): void {
  store.write(() => {
    const attempts = countingAttempts(user) + 1;
    if (user.lockedAt && lockoutRemainingSeconds(user) === null) user.lockedAt = null;
    user.failedAttempts = attempts;
    if (attempts >= MAX_VERIFICATION_ATTEMPTS && !user.lockedAt) lockUser(user);
  });
}

/** A successful sign-in clears the count. */
export function recordSuccessfulAttempt(user: UserRecord): void {
  if (user.failedAttempts) user.failedAttempts = 0;
  if (user.lockedAt && lockoutRemainingSeconds(user) === null) user.lockedAt = null;
}

/**
 * Clerk's refusals for a user who may not sign in: banned (403 `user_banned`,
 * the code clerk-js's `isUnauthenticatedError` treats as a terminal user state),
 * or locked (403 `user_locked` with `lockout_expires_in_seconds`, as Clerk's
 * error-handling guide shows it).
 */
export function refuseBarredUser(user: UserRecord): void {
  if (user.banned) {
    throw new ApiError(
      403,
      "user_banned",
      "You are not allowed to sign in.",
      undefined,
      "This account is banned. Contact the application's support for more information.",
    );
  }
  const left = lockoutRemainingSeconds(user);
  if (left !== null) {
    const minutes = Math.ceil(left / 60);
    throw new LockedError(left, minutes);
  }
}

/** `user_locked` carries the remaining seconds in its meta, which ApiError's envelope has no room for. */
class LockedError extends ApiError {
  constructor(
    private readonly seconds: number,
    minutes: number,
  ) {
    super(
      403,
      "user_locked",
      "Account locked",
      undefined,
      `Your account is locked. You will be able to try again in ${minutes} minute${minutes === 1 ? "" : "s"}. For more information, contact support.`,
    );
  }
  override toJSON() {
    const out = super.toJSON();
    for (const error of out.errors) Object.assign(error, { meta: { lockout_expires_in_seconds: this.seconds } });
    return out;
  }
}

// Instance restrictions ---------------------------------------------------------

/** A few well-known throwaway-address domains: the emulator's stand-in for Clerk's list. */
const DISPOSABLE_DOMAINS = new Set([
  "mailinator.com",
  "guerrillamail.com",
  "10minutemail.com",
  "yopmail.com",
  "temp-mail.org",
  "trashmail.com",
  "sharklasers.com",
  "dispostable.com",
  "getnada.com",
  "maildrop.cc",
]);

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

/** Whether a list entry names the address: the address itself, or its whole domain (`*@example.com`, `example.com`). */
export function identifierMatches(entry: string, email: string): boolean {
  if (entry === email) return true;
  return entry.replace(/^\*@/, "") === domainOf(email);
}

const notAllowed = (email: string) =>
  new ApiError(
    403,
    "not_allowed_access",
    "You are not allowed to access this application.",
    "email_address",
    `${email} is not allowed to access this application.`,
  );

/**
 * The allow-list and block-list, where the restrictions turn them on. An
 * invitation bypasses the allow-list (Clerk: invited addresses are let in),
 * never the block-list; at sign-in both are skipped when the instance says
 * `allowlist_blocklist_disabled_on_sign_in`.
 */
export function refuseUnlistedIdentifier(
  store: Store,
  email: string,
  at: "sign_in" | "sign_up",
  { invited = false } = {},
): void {
  const { restrictions, allowlist, blocklist } = store.state;
  if (at === "sign_in" && restrictions.allowlistBlocklistDisabledOnSignIn) return;
  const address = email.trim().toLowerCase();
  if (restrictions.blocklist && blocklist.some((e) => identifierMatches(e.identifier, address))) {
    throw notAllowed(address);
  }
  if (restrictions.allowlist && !invited && !allowlist.some((e) => identifierMatches(e.identifier, address))) {
    throw notAllowed(address);
  }
}

/** At sign-up, the address rules the restrictions turn on: no `+`, `=` or `#` subaddress, no throwaway domain. */
export function refuseBlockedEmailAddress(store: Store, email: string): void {
  const { restrictions } = store.state;
  const local = email.slice(0, email.lastIndexOf("@"));
  const blocked =
    (restrictions.blockEmailSubaddresses && /[+=#]/.test(local)) ||
    (restrictions.blockDisposableEmailDomains && DISPOSABLE_DOMAINS.has(domainOf(email)));
  if (blocked) {
    throw new ApiError(
      422,
      "form_email_address_blocked",
      "This email address is not allowed. Please use another one.",
      "email_address",
    );
  }
}

// The instance's lists and switches (the Backend API's allowlist, blocklist and restrictions) -------------

export function addListedIdentifier(
  store: Store,
  list: "allowlist" | "blocklist",
  identifier: string,
  invitationId: string | null,
): IdentifierRecord {
  const t = Date.now();
  const entry: IdentifierRecord = {
    id: newId(list === "allowlist" ? "alid" : "blid"),
    identifier,
    invitationId,
    createdAt: t,
    updatedAt: t,
  };
  return store.write((state) => {
    state[list].push(entry);
    return entry;
  });
}

export function removeListedIdentifier(store: Store, list: "allowlist" | "blocklist", id: string): IdentifierRecord {
  const entry = store.state[list].find((e) => e.id === id);
  if (!entry) throw new ApiError(404, "resource_not_found", "Identifier not found");
  return store.write((state) => {
    state[list] = state[list].filter((e) => e !== entry);
    return entry;
  });
}

export function changeRestrictions(store: Store, changes: Partial<RestrictionsRecord>): RestrictionsRecord {
  return store.write((state) => Object.assign(state.restrictions, changes));
}
