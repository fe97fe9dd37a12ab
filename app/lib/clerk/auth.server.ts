import { getAuth } from "@clerk/remix/ssr.server";
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

export function signInPath(request: Request): string {
  const url = new URL(request.url);
  return `/sign-in?redirect_url=${encodeURIComponent(url.pathname + url.search)}`;
}

type Auth = Awaited<ReturnType<typeof getAuth>>;

/** Clerk's `getAuth`, once per request however many loaders ask (they share the load context). */
export function getRequestAuth(args: LoaderFunctionArgs): Promise<Auth> {
  return args.context.upstream.once("clerk.getAuth", () => args.context.timing.time("auth", () => getAuth(args)));
}

/** The signed-in user's id, or a redirect to sign-in that comes back here. */
export async function requireUserId(args: LoaderFunctionArgs): Promise<string> {
  const { userId } = await getRequestAuth(args);
  if (!userId) throw redirect(signInPath(args.request));
  return userId;
}
