import { newId } from "../state/ids";
import { ApiError } from "./errors";
import type { PhoneRecord, Store, UserRecord, Verifier } from "../state/store";

/**
 * Phone numbers and usernames, the two identifiers beside email addresses:
 * how Clerk takes them in (E.164; 4 to 64 letters, digits, `_` or `-`), and
 * who holds one. Both are unique in the instance, verified or not, as Clerk
 * refuses a number or name someone else already has.
 */

/** Clerk's username settings as the environment advertises them (`username_settings`). */
export const USERNAME_MIN = 4;
export const USERNAME_MAX = 64;

/** Clerk's test numbers, +1 (XXX) 555-0100 to 0199, take the test code and are never texted. */
export const isTestPhone = (phone: string) => /^\+1\d{3}55501\d{2}$/.test(phone);

/** An E.164 number from what a person typed ("+1 (555) 555-0100" too); Clerk's 422 otherwise. */
export function parsePhone(value: unknown, param = "phone_number"): string {
  const text = typeof value === "string" ? value.replace(/[\s().-]/g, "") : "";
  if (!/^\+[1-9]\d{6,14}$/.test(text)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "is invalid",
      param,
      `${param} must be a valid phone number according to E.164 international standard.`,
    );
  }
  return text;
}

/** A username as Clerk keeps it (lowercase), after Clerk's checks on its length and characters. */
export function parseUsername(value: unknown, param = "username"): string {
  const name = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (name.length < USERNAME_MIN || name.length > USERNAME_MAX) {
    throw new ApiError(
      422,
      "form_username_invalid_length",
      `Username must be between ${USERNAME_MIN} and ${USERNAME_MAX} characters long.`,
      param,
    );
  }
  if (!/^[a-z0-9_-]+$/.test(name)) {
    throw new ApiError(
      422,
      "form_username_invalid_character",
      "Username can only contain letters, numbers and '_' or '-'.",
      param,
    );
  }
  // The instance's `allow_numeric_usernames` is off.
  if (/^\d+$/.test(name)) {
    throw new ApiError(
      422,
      "form_username_needs_non_number_char",
      "Your username must contain at least one non-numeric character.",
      param,
    );
  }
  return name;
}

/** Whether anyone but `except` holds this number, verified or not. */
export const phoneTaken = (store: Store, phone: string, except?: UserRecord) =>
  store.state.users.some((u) => u !== except && u.phones.some((p) => p.phone === phone));

export const usernameTaken = (store: Store, username: string, except?: UserRecord) =>
  store.state.users.some((u) => u !== except && u.username === username);

export function refuseTakenPhone(store: Store, phone: string, except?: UserRecord, param = "phone_number"): void {
  if (phoneTaken(store, phone, except)) {
    throw new ApiError(422, "form_identifier_exists", "That phone number is taken. Please try another.", param);
  }
}

export function refuseTakenUsername(store: Store, username: string, except?: UserRecord, param = "username"): void {
  if (usernameTaken(store, username, except)) {
    throw new ApiError(422, "form_identifier_exists", "That username is taken. Please try another.", param);
  }
}

function unverifiedPrimaryOwner(store: Store, email: string): UserRecord | null {
  if (store.settings.instance.emailVerifyAtSignUp) return null;
  const wanted = email.trim().toLowerCase();
  return store.find("users", (u) => u.emails.some((e) => e.id === u.emailId && !e.verified && e.email === wanted));
}

/** The user a verified number identifies. */
export const userByPhone = (store: Store, phone: string) =>
  store.find("users", (u) => u.phones.some((p) => p.verified && p.phone === phone));

/**
 * Who an identifier typed into sign-in names: an email address, a username or a phone number. An
 * address identifies its owner once verified, or, where the instance does not verify at sign-up, while
 * it is the primary address the person signed up with, unverified (they sign in to verify it).
 */
export function userByIdentifier(store: Store, identifier: string): UserRecord | null {
  if (identifier.includes("@")) return store.userByEmail(identifier) ?? unverifiedPrimaryOwner(store, identifier);
  const phone = identifier.replace(/[\s().-]/g, "");
  if (/^\+\d+$/.test(phone)) return userByPhone(store, phone);
  const name = identifier.trim().toLowerCase();
  return store.find("users", (u) => u.username === name);
}

/** A new number on a user's profile, verified (and how) or not; the first verified one becomes primary, as in Clerk. */
export function addPhone(user: UserRecord, phone: string, verifiedBy: Verifier | null): PhoneRecord {
  const t = Date.now();
  const verified = verifiedBy !== null;
  const record: PhoneRecord = { id: newId("idn"), phone, verified, createdAt: t, updatedAt: t };
  if (verifiedBy) record.verifiedBy = verifiedBy;
  user.phones.push(record);
  if (verified && !user.phoneId) user.phoneId = record.id;
  user.updatedAt = t;
  return record;
}

/** Marks a number verified; with no primary number yet, it becomes the primary one. */
export function verifyPhone(user: UserRecord, record: PhoneRecord, by: Verifier): void {
  record.verified = true;
  record.verifiedBy = by;
  record.updatedAt = Date.now();
  user.phoneId ??= record.id;
  user.updatedAt = record.updatedAt;
}

/** Takes a number off a profile; the primary one passes to another verified number, if any. */
export function removePhone(user: UserRecord, record: PhoneRecord): void {
  user.phones = user.phones.filter((p) => p !== record);
  if (user.phoneId === record.id) user.phoneId = user.phones.find((p) => p.verified)?.id ?? null;
  user.updatedAt = Date.now();
}

/** Makes a verified number the primary one (`primary_phone_number_id`); Clerk's 422 for any other. */
export function setPrimaryPhone(user: UserRecord, id: string, param = "primary_phone_number_id"): void {
  const record = user.phones.find((p) => p.id === id);
  if (!record) throw new ApiError(404, "resource_not_found", "Phone number not found", param);
  if (!record.verified) {
    throw new ApiError(422, "form_param_value_invalid", "Verify this phone number before making it primary.", param);
  }
  user.phoneId = record.id;
}

export function phoneOf(user: UserRecord, id: unknown): PhoneRecord {
  const record = user.phones.find((p) => p.id === id);
  if (!record) throw new ApiError(404, "resource_not_found", "Phone number not found");
  return record;
}

/** `username` and `primary_phone_number_id` in an update of the user (`PATCH /v1/me`, `PATCH /v1/users/:id`). */
export function applyIdentifierChanges(store: Store, user: UserRecord, body: Record<string, unknown>): void {
  const primary = typeof body.primary_phone_number_id === "string" ? body.primary_phone_number_id : null;
  const username =
    body.username === undefined
      ? undefined
      : body.username === null || body.username === ""
        ? null
        : parseUsername(body.username);
  if (username) refuseTakenUsername(store, username, user);
  if (primary !== null) setPrimaryPhone(user, primary);
  if (username !== undefined) user.username = username;
}
