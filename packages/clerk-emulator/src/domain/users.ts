import { lockUser } from "./account-restrictions";
import { ApiError } from "./errors";
import { addPhone, applyIdentifierChanges } from "./identifiers";
import { importTotp, replaceBackupCodes } from "./mfa";
import { setPassword } from "./passwords";
import { newId } from "../state/ids";
import { hashPassword, type Store, type UserRecord } from "../state/store";

/** Users as the Backend API makes, changes and deletes them (`/v1/users`). */

/** `totp_secret` and `backup_codes` of a create or an update, already checked. */
export type MfaFields = { totpSecret?: string; backupCodes?: string[] };

/** The external id (`external_id`) is unique in the instance: refused while anyone but `except` has it. */
export function refuseTakenExternalId(store: Store, externalId: string, except: UserRecord | null): void {
  if (store.state.users.some((u) => u !== except && u.externalId === externalId)) {
    throw new ApiError(422, "form_identifier_exists", "That external id is taken. Please try another.", "external_id");
  }
}

function applyMfaFields(store: Store, user: UserRecord, mfa: MfaFields): void {
  if (mfa.totpSecret) importTotp(store, user, mfa.totpSecret);
  if (mfa.backupCodes) replaceBackupCodes(store, user, mfa.backupCodes);
}

/** A new user, everything about it checked beforehand: `emails` (the first is primary) and `phones` verified. */
export function createUser(
  store: Store,
  input: {
    emails: string[];
    password: string | null;
    /** The kept fields the body gives (names, external id, metadata, `createdAt`…). */
    fields: Partial<UserRecord>;
    username: string | null;
    phones: string[];
    mfa: MfaFields;
    /** Made banned or locked, the user cannot sign in from the start (account-restrictions.ts). */
    banned: boolean;
    locked: boolean;
  },
): UserRecord {
  const { emails, password, fields } = input;
  return store.write(() => {
    const user = store.createUser({
      email: emails[0]!,
      passwordHash: password ? hashPassword(password) : null,
      firstName: fields.firstName ?? null,
      lastName: fields.lastName ?? null,
    });
    for (const email of emails.slice(1)) {
      user.emails.push({
        id: newId("idn"),
        email,
        verified: true,
        createdAt: user.createdAt,
        updatedAt: user.createdAt,
      });
    }
    user.username = input.username;
    for (const phone of input.phones) addPhone(user, phone, "admin");
    Object.assign(user, fields);
    applyMfaFields(store, user, input.mfa);
    if (fields.createdAt !== undefined) user.updatedAt = fields.createdAt;
    if (input.banned) user.banned = true;
    if (input.locked) lockUser(user);
    return user;
  });
}

/**
 * The Backend API's update, checked and applied in Clerk's order: the profile image (an uploaded one), the
 * primary address (a verified one of theirs), `username` and `primary_phone_number_id`, the password (with
 * `signOut`, every session ends), then the kept fields and the second factors.
 */
export function updateUser(
  store: Store,
  user: UserRecord,
  changes: {
    fields: Partial<UserRecord>;
    mfa: MfaFields;
    imageId: string | null;
    primaryEmailAddressId: string | null;
    /** `username` and `primary_phone_number_id`, as the body gives them (applyIdentifierChanges reads them). */
    identifiers: Record<string, unknown>;
    password: { value: string; skipChecks: boolean; signOut: boolean } | null;
  },
): UserRecord {
  const { imageId, primaryEmailAddressId: primary } = changes;
  if (imageId !== null && !store.image(imageId)) {
    throw new ApiError(422, "form_param_value_invalid", "No such image.", "profile_image_id");
  }
  return store.write(() => {
    if (primary !== null) {
      const email = user.emails.find((e) => e.id === primary && e.verified);
      if (!email) {
        throw new ApiError(
          422,
          "form_param_value_invalid",
          "No such verified email address.",
          "primary_email_address_id",
        );
      }
      user.email = email.email;
      user.emailId = email.id;
    }
    applyIdentifierChanges(store, user, changes.identifiers);
    if (changes.password) {
      const { value, skipChecks, signOut } = changes.password;
      setPassword(store, user, value, { skipChecks, signOut });
    }
    if (imageId !== null && imageId !== user.imageId) {
      store.deleteImage(user.imageId);
      user.imageId = imageId;
    }
    Object.assign(user, changes.fields);
    applyMfaFields(store, user, changes.mfa);
    user.updatedAt = Date.now();
    return user;
  });
}

/** A user and everything that is theirs: sessions (revoked), memberships, image. */
export function deleteUser(store: Store, user: UserRecord): UserRecord {
  return store.write(() => {
    store.deleteUser(user);
    return user;
  });
}
