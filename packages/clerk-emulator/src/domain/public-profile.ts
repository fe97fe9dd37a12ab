import type { OrgRecord, Store, UserRecord } from "../state/store";

/** How a user shows to others: the name and picture Clerk's JSON and tokens carry. */
export function fullName(user: UserRecord): string | null {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ").trim();
  return name || null;
}

/** The instance id Clerk's default images name (the emulator's one instance, as its Backend API calls it). */
const INSTANCE_ID = "ins_emulator";

/**
 * Where the default avatars are served, under the emulator's own origin. Clerk
 * serves them from `https://img.clerk.com/<payload>`, which a browser would
 * load from the internet; the emulator reaches nothing beyond loopback, so it
 * draws them itself. The path names `avatar_placeholder` because clerk-js's
 * `isDefaultImage` reads that word as "no image of one's own" (it decodes the
 * payload only when it is the whole path, which a proxied `/__clerk/…` is not):
 * <UserProfile/> then offers no "Remove" for a picture nobody uploaded.
 */
export const DEFAULT_AVATAR_PATH = "/images/avatar_placeholder";

/**
 * What a default avatar's address carries, as Clerk's does: base64url JSON
 * `{"type":"default","iid":…,"rid":…,"initials":…}` (the initials only when
 * there is a name to take them from).
 */
export type DefaultAvatar = { type: "default"; iid: string; rid: string; initials?: string };

function defaultAvatarUrl(store: Store, resourceId: string, initials: string): string {
  const payload: DefaultAvatar = { type: "default", iid: INSTANCE_ID, rid: resourceId };
  if (initials) payload.initials = initials;
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${store.settings.publicUrl}${DEFAULT_AVATAR_PATH}/${encoded}`;
}

/** The payload of a default avatar's address, or null when it is not one. */
export function readDefaultAvatar(encoded: string): DefaultAvatar | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return null;
    const { type, iid, rid, initials } = value as Record<string, unknown>;
    if (type !== "default" || typeof iid !== "string" || typeof rid !== "string") return null;
    if (initials !== undefined && typeof initials !== "string") return null;
    return { type, iid, rid, ...(initials ? { initials } : {}) };
  } catch {
    return null;
  }
}

const initialOf = (text: string | null) => (text?.trim() ? Array.from(text.trim())[0]!.toUpperCase() : "");

/** An uploaded image's address (the emulator's own `/images/:id`). */
const uploadedImageUrl = (store: Store, imageId: string) => `${store.settings.publicUrl}/images/${imageId}`;

/**
 * A user's picture: the uploaded one, else the default avatar with the
 * initials of their names. `has_image` says which (false for the default).
 */
export function userImageUrl(store: Store, user: UserRecord): string {
  if (user.imageId) return uploadedImageUrl(store, user.imageId);
  return defaultAvatarUrl(store, user.id, initialOf(user.firstName) + initialOf(user.lastName));
}

/** An organization's logo: the uploaded one, else the default avatar with its name's initial. */
export function orgImageUrl(store: Store, org: OrgRecord): string {
  if (org.imageId) return uploadedImageUrl(store, org.imageId);
  return defaultAvatarUrl(store, org.id, initialOf(org.name));
}
