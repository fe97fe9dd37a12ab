import type { Store, UserRecord } from "../state/store";

/** How a user shows to others: the name and picture Clerk's JSON and tokens carry. */
export function fullName(user: UserRecord): string | null {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ").trim();
  return name || null;
}

/** Where an uploaded image is served (the emulator's own `/images/:id`); empty when there is none, as Clerk's default avatar is ours to draw. */
export function imageUrl(store: Store, imageId: string | null): string {
  return imageId ? `${store.settings.publicUrl}/images/${imageId}` : "";
}
