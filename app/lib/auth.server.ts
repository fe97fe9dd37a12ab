import { getAuth } from "@clerk/remix/ssr.server";
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

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
  const imageUrl = typeof claims?.image_url === "string" && /^https?:\/\//.test(claims.image_url) ? claims.image_url : null;
  return { id: userId, name, imageUrl };
}

export function signInPath(request: Request): string {
  const url = new URL(request.url);
  return `/sign-in?redirect_url=${encodeURIComponent(url.pathname + url.search)}`;
}

type Auth = Awaited<ReturnType<typeof getAuth>>;

// A page's loaders run for one request; verifying its session once is enough.
const authByRequest = new WeakMap<Request, Promise<Auth>>();

/** Clerk's `getAuth`, once per request however many loaders ask. */
export function getRequestAuth(args: LoaderFunctionArgs): Promise<Auth> {
  let auth = authByRequest.get(args.request);
  if (!auth) {
    auth = getAuth(args);
    authByRequest.set(args.request, auth);
  }
  return auth;
}

/** The signed-in user's id, or a redirect to sign-in that comes back here. */
export async function requireUserId(args: LoaderFunctionArgs): Promise<string> {
  const { userId } = await getRequestAuth(args);
  if (!userId) throw redirect(signInPath(args.request));
  return userId;
}
