import { ApiError } from "./errors";
import { applyIdentifierChanges } from "./identifiers";
import { mergeMetadata, parseMetadata } from "./metadata";
import type { ImageRecord, Store, UserRecord } from "../state/store";

/** A user's profile: what the person changes of it themselves (`PATCH /v1/me`), their picture and their metadata. */

export type MetadataKind = "public" | "private" | "unsafe";
const METADATA_KINDS = ["public", "private", "unsafe"] as const;

/** What `PATCH /v1/me` may change; a field left undefined (or a name null) keeps its value. */
export type ProfileChanges = {
  /** `username` and `primary_phone_number_id`, as the body gives them (applyIdentifierChanges reads them). */
  identifiers: Record<string, unknown>;
  firstName: string | null;
  lastName: string | null;
  primaryEmailAddressId: string | null;
  /** The body's `unsafe_metadata`, not parsed yet: it replaces what was there (clerk-js sends it whole). */
  unsafeMetadata: unknown;
};

/**
 * The person's own update of their profile, checked and applied in Clerk's order: the identifiers, the
 * names, the primary address (one of theirs, verified), the unsafe metadata.
 */
export function updateProfile(store: Store, user: UserRecord, changes: ProfileChanges): UserRecord {
  return store.write(() => {
    applyIdentifierChanges(store, user, changes.identifiers);
    if (changes.firstName !== null) user.firstName = changes.firstName.trim().slice(0, 100) || null;
    if (changes.lastName !== null) user.lastName = changes.lastName.trim().slice(0, 100) || null;
    const primary = changes.primaryEmailAddressId;
    if (primary !== null) {
      const email = user.emails.find((e) => e.id === primary);
      if (!email) throw new ApiError(404, "resource_not_found", "Email address not found", "primary_email_address_id");
      if (!email.verified) {
        throw new ApiError(
          422,
          "form_param_value_invalid",
          "Verify this email address before making it primary.",
          "primary_email_address_id",
        );
      }
      user.email = email.email;
      user.emailId = email.id;
    }
    if (changes.unsafeMetadata !== undefined) {
      user.unsafeMetadata = parseMetadata(changes.unsafeMetadata, "unsafe_metadata");
    }
    user.updatedAt = Date.now();
    return user;
  });
}

/** A newly uploaded picture replaces the user's old one (whose image goes). */
export function setProfileImage(
  store: Store,
  user: UserRecord,
  upload: { name: string; contentType: string; bytes: Buffer },
): ImageRecord {
  return store.write(() => {
    const image = store.saveImage(upload);
    store.deleteImage(user.imageId);
    user.imageId = image.id;
    user.updatedAt = Date.now();
    return image;
  });
}

/** Removes the user's picture and its image; the removed image's id, or null when they had none (nothing changes). */
export function removeProfileImage(store: Store, user: UserRecord): string | null {
  const id = user.imageId;
  if (!id) return null;
  store.write(() => {
    store.deleteImage(id);
    user.imageId = null;
    user.updatedAt = Date.now();
  });
  return id;
}

/**
 * Clerk's metadata merge into the user's (nested objects merge, a key set to null goes), for each kind
 * given, in the order public, private, unsafe; each value is checked as it comes (`parseMetadata`).
 */
export function mergeUserMetadata(
  store: Store,
  user: UserRecord,
  given: Partial<Record<MetadataKind, unknown>>,
): UserRecord {
  return store.write(() => {
    for (const kind of METADATA_KINDS) {
      const value = given[kind];
      if (value !== undefined) {
        user[`${kind}Metadata`] = mergeMetadata(user[`${kind}Metadata`], parseMetadata(value, `${kind}_metadata`));
      }
    }
    user.updatedAt = Date.now();
    return user;
  });
}

/** Each kind of metadata given replaces the old one whole (all checked first); the others stay. */
export function replaceUserMetadata(
  store: Store,
  user: UserRecord,
  given: Partial<Record<MetadataKind, unknown>>,
): UserRecord {
  const replaced = METADATA_KINDS.flatMap((kind) => {
    const value = given[kind];
    return value === undefined ? [] : [[kind, parseMetadata(value, `${kind}_metadata`)] as const];
  });
  return store.write(() => {
    for (const [kind, value] of replaced) user[`${kind}Metadata`] = value;
    user.updatedAt = Date.now();
    return user;
  });
}

/**
 * A user's external account (`users.deleteUserExternalAccount`). The emulator
 * signs nobody in with an OAuth provider (GUIDE.md, "What it does not cover"),
 * so no user has one: every id is Clerk's 404, as for an account already gone.
 */
export function removeExternalAccount(user: UserRecord, externalAccountId: string): never {
  throw new ApiError(
    404,
    "resource_not_found",
    `No external account ${externalAccountId} on user ${user.id}: the emulator has no OAuth sign-in`,
  );
}
