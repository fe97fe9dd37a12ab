import type { RequestState } from "@clerk/backend/internal";
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { getEnv } from "../env.server";
import { SIGN_IN_URL, SIGN_UP_URL } from "./urls";

export function signInPath(request: Request): string {
  const url = new URL(request.url);
  return `/sign-in?redirect_url=${encodeURIComponent(url.pathname + url.search)}`;
}

type Args = Pick<LoaderFunctionArgs, "request" | "context">;

/** `CLERK_PROXY_URL` as Clerk's SDKs want it: absolute, a path resolved against the request's origin. */
function proxyUrlFor(request: Request): string | undefined {
  const proxy = getEnv().CLERK_PROXY_URL;
  return proxy?.startsWith("/") ? new URL(proxy, request.url).toString() : proxy;
}

/**
 * Clerk's session check, made once per request: the root loader, the page's
 * loaders and its action share it through the load context. (@clerk/remix's
 * `rootAuthLoader` and `getAuth` each make their own, so a document paid for
 * two or three.) Like them, it answers Clerk's handshake with a redirect.
 */
export function authenticate({ request, context }: Args): Promise<RequestState> {
  return context.upstream.once("clerk.authenticate", () =>
    context.timing.time("auth", async () => {
      // Clerk needs the URL and headers only; a copy without the body leaves that to the action.
      const copy = new Request(request.url, { method: request.method, headers: request.headers });
      const state = await context.clerk.authenticateRequest(copy, {
        proxyUrl: proxyUrlFor(request),
        signInUrl: SIGN_IN_URL,
        signUpUrl: SIGN_UP_URL,
      });
      if (state.headers.get("location")) throw new Response(null, { status: 307, headers: state.headers });
      if (state.status === "handshake") throw new Error("Clerk: handshake without a redirect");
      return state;
    }),
  );
}

export type Auth = ReturnType<RequestState["toAuth"]> & {};

const authObjects = new WeakMap<RequestState, Auth>();

/**
 * The auth object of a request's one authentication, built once: Clerk's
 * `toAuth()` makes a new Backend API client at every call, and a document
 * asks for it from the root, the layout and the page.
 */
export function authOf(state: RequestState): Auth {
  let auth = authObjects.get(state);
  if (!auth) {
    auth = state.toAuth() ?? undefined;
    if (!auth) throw new Error("Clerk: no auth object after a completed handshake");
    authObjects.set(state, auth);
  }
  return auth;
}

/** The request's auth object (user, session, active organization and its role). */
export async function getRequestAuth(args: Args): Promise<Auth> {
  return authOf(await authenticate(args));
}

/** The request's auth object for a signed-in user, or a redirect to sign-in that comes back here. */
export async function requireSignedIn(args: Args): Promise<Auth & { userId: string }> {
  const auth = await getRequestAuth(args);
  if (!auth.userId) throw redirect(signInPath(args.request));
  return auth as Auth & { userId: string };
}

/** The signed-in user's id, or a redirect to sign-in that comes back here. */
export async function requireUserId(args: Args): Promise<string> {
  return (await requireSignedIn(args)).userId;
}
