/** What the interface shows of the signed-in person. */
export type Viewer = {
  id: string;
  name: string;
  imageUrl: string | null;
};

type SessionClaims = Record<string, unknown> | null | undefined;

/**
 * The viewer, from the verified session token alone (no Backend API call per
 * page). `name` and `image_url` are custom session claims: configure them in
 * Clerk's dashboard as `{"name": "{{user.full_name}}", "image_url": "{{user.image_url}}"}`.
 */
export function viewerFromClaims(userId: string | null | undefined, claims: SessionClaims): Viewer | null {
  if (!userId) return null;
  const name = typeof claims?.name === "string" && claims.name.trim() ? claims.name.trim() : "Your account";
  const imageUrl =
    typeof claims?.image_url === "string" && /^https?:\/\//.test(claims.image_url) ? claims.image_url : null;
  return { id: userId, name, imageUrl };
}
