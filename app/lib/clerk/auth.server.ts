import type { RequestState } from "@clerk/backend/internal";
import { getCookieSuffix, parsePublishableKey } from "@clerk/shared/keys";
import { redirect, redirectDocument, type LoaderFunctionArgs } from "@remix-run/node";
import { getEnv, isLocalEmulator } from "../env.server";
import { safeLocation } from "../http/safe-redirect";
import { unavailable } from "../upstream/refusals.server";
import { bindHandshake, HANDSHAKE_STATE, isHandshakeRedirect } from "./handshake-binding.server";
import { HANDSHAKE_NONCE, resolveHandshakeNonce } from "./handshake-nonce.server";
import { signedCookieOptions } from "../http/cookies.server";
import { personPays, type Payer } from "../upstream/payer.server";
import { sessionTokenCookie, withoutForgedTokens } from "./session-cookies.server";
import { sessionToEnd, settlePost, STALE_TOKEN_WINDOW_MS, staleReason, type ClerkCheck } from "./stale-token.server";
import { SIGN_IN_URL, SIGN_UP_URL } from "./urls";

export function signInPath(request: Request): string {
  const url = new URL(request.url);
  return `/sign-in?redirect_url=${encodeURIComponent(url.pathname + url.search)}`;
}

type Args = Pick<LoaderFunctionArgs, "request" | "context">;

/**
 * `CLERK_PROXY_URL` as Clerk's SDKs want it: absolute, a path resolved
 * against PUBLIC_ORIGIN (in local mode, the request's own origin, whose Host
 * the local-only check holds to loopback names): never a Host header's
 * choice, since the handshake sends browsers there.
 */
function proxyUrlFor(request: Request): string | undefined {
  const { CLERK_PROXY_URL: proxy, PUBLIC_ORIGIN } = getEnv();
  return proxy?.startsWith("/") ? new URL(proxy, PUBLIC_ORIGIN ?? request.url).toString() : proxy;
}

/** Where Clerk's SDK may send a browser off this site: its Frontend API (its handshake), or the proxy in front of it. */
function clerkFrontendOrigin(request: Request): string {
  const proxy = proxyUrlFor(request);
  return proxy
    ? new URL(proxy).origin
    : `https://${parsePublishableKey(getEnv().CLERK_PUBLISHABLE_KEY)?.frontendApi ?? ""}`;
}

/**
 * The origins a session token's `azp` (the page that asked Clerk for it) may
 * name: PUBLIC_ORIGIN and CLERK_AUTHORIZED_PARTIES (satellite domains); in
 * local mode, the app's own origin. A token made for another site on the
 * same Clerk instance is then no session here. (A token without `azp`, as a
 * server-made one, is Clerk's SDK's to accept.)
 */
function authorizedParties(request: Request): string[] {
  const env = getEnv();
  if (isLocalEmulator(env)) return [new URL(request.url).origin];
  return [env.PUBLIC_ORIGIN, ...(env.CLERK_AUTHORIZED_PARTIES ?? [])].filter((o): o is string => Boolean(o));
}

/** The options of every Clerk check of this app's requests. */
function clerkOptions(request: Request) {
  return {
    proxyUrl: proxyUrlFor(request),
    signInUrl: SIGN_IN_URL,
    signUpUrl: SIGN_UP_URL,
    authorizedParties: authorizedParties(request),
  };
}

/**
 * The request as Clerk's SDK is shown it (once per request): URL and
 * headers, without the body (the action's), without a handshake nonce (its
 * cookies read here instead: handshake-nonce.server), and without the tokens
 * no key of Clerk's signed; the one session token Clerk's rules pick from it;
 * whether the request's session tokens were all forged; and the cookies a
 * handshake nonce brought, for the answer.
 */
function shownToClerk({ request, context }: Args) {
  return context.upstream.once("clerk.shownRequest", async () => {
    // This instance's cookie suffix (clerk-js 5 writes `__session_<suffix>` beside `__session`),
    // hashed once per key (patches/@clerk+shared).
    const suffix = await getCookieSuffix(getEnv().CLERK_PUBLISHABLE_KEY);
    const copy = new Request(request.url, { method: context.method, headers: request.headers });
    const handshake = await resolveHandshakeNonce(context, copy, {
      documentGet: context.method === "GET" && !context.dataRequest,
      payer: () => sessionHolder(context, copy, suffix),
    });
    const shown = await withoutForgedTokens(handshake.request, suffix, (token) =>
      context.signingKeys.signedByClerk(token),
    );
    return { ...shown, handshakeCookies: handshake.directives };
  });
}

/**
 * Who a request's Clerk calls are charged to before its session is settled:
 * the person named by the session token it carries, if one of Clerk's keys
 * signed it, it expired at most STALE_TOKEN_WINDOW_MS ago, and Clerk has not
 * said its session or person is gone (it is attribution, not access: only
 * Clerk could have made it, for that person); else its address. A token from
 * an old log, or of a session ended since, spends nothing of its owner's.
 */
async function sessionHolder(context: Args["context"], request: Request, suffix: string): Promise<Payer> {
  const token = sessionTokenCookie(request, suffix);
  const signed = token ? await context.signingKeys.signedByClerk(token).catch(() => false) : false;
  const claims = signed ? claimsOf(token!) : null;
  if (!claims || !isFresh(claims)) return context.payer;
  const gone = await context.orgs.goneSessions.anyGone([claims.sid, claims.sub].filter(Boolean) as string[]);
  return gone ? context.payer : personPays(claims.sub);
}

type TokenClaims = { sub: string; sid: string | null; exp: number };

/** A JWT's subject, session and expiry, unverified (the caller checked its signature). */
function claimsOf(token: string): TokenClaims | null {
  try {
    const { sub, sid, exp } = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as {
      sub?: unknown;
      sid?: unknown;
      exp?: unknown;
    };
    if (typeof sub !== "string" || sub.length === 0 || sub.length > 128 || typeof exp !== "number") return null;
    return { sub, sid: typeof sid === "string" && sid.length <= 128 ? sid : null, exp };
  } catch {
    return null;
  }
}

/** Whether a token expired at most STALE_TOKEN_WINDOW_MS ago (the rescue window: who pays is charged by freshness). */
const isFresh = ({ exp }: TokenClaims) => exp * 1000 + STALE_TOKEN_WINDOW_MS >= Date.now();

/**
 * The request's URL without anything Clerk's SDK would act on (handshake
 * tokens and nonces, dev-browser and sync parameters): what the checks that
 * must carry no credentials but one (a bearer token) are built on.
 */
function bareUrl(request: Request): string {
  const url = new URL(request.url);
  for (const name of [...url.searchParams.keys()]) if (name.startsWith("__clerk")) url.searchParams.delete(name);
  return url.toString();
}

/**
 * Clerk's own answer for the request, made once per request: signed in,
 * signed out, or a handshake it wants the browser sent through. A session
 * token no key of Clerk's signed is signed out, as Clerk's SDK answers a bad
 * signature, without showing it the token. Nothing is thrown here but
 * Clerk's keys being unreadable; `authenticate` decides what each answer means.
 */
function clerkState(args: Args): Promise<RequestState> {
  const { request, context } = args;
  return context.upstream.once("clerk.authenticateRequest", () =>
    context.timing.time("auth", async () => {
      const shown = await shownToClerk(args);
      if (shown.forged) return signedOutFor(args)();
      return context.clerk.authenticateRequest(shown.request, clerkOptions(request));
    }),
  );
}

/** What stale-token.server needs of Clerk: the request's token, its verification lenient on times, and auth objects. */
async function clerkCheckFor(args: Args): Promise<ClerkCheck> {
  const { request, context } = args;
  return {
    token: (await shownToClerk(args)).token,
    verify: (token, clockSkewInMs) =>
      context.clerk.authenticateRequest(
        new Request(bareUrl(request), { headers: { Authorization: `Bearer ${token}` } }),
        {
          ...clerkOptions(request),
          clockSkewInMs,
        },
      ),
    authOf,
  };
}

/** Clerk's signed-out state for this request (a request without credentials, nor a handshake's: no network). */
function signedOutFor({ request, context }: Args) {
  return () => context.clerk.authenticateRequest(new Request(bareUrl(request)), clerkOptions(request));
}

// What the browser sent, not the request a loader got (a GET copy, after an action).
const isRead = (method: string) => method === "GET" || method === "HEAD";

/**
 * Clerk's session check, made once per request: the root loader, the page's
 * loaders and its action share it through the load context. (@clerk/remix's
 * `rootAuthLoader` and `getAuth` each make their own, so a document paid for
 * two or three.) A GET is answered as Clerk's SDK answers it, handshake
 * included. A POST never goes to the handshake (it would be lost there): a
 * stale token is confirmed with Clerk instead (`settlePost`).
 */
export function authenticate(args: Args): Promise<RequestState> {
  const { context } = args;
  return context.upstream
    .once("clerk.authenticate", async () => {
      const state = await settledState(args);
      context.person.userId = state.status === "signed-in" ? (authOf(state).userId ?? null) : null;
      if (context.person.userId) context.payer = personPays(context.person.userId);
      return state;
    })
    .catch((error: unknown) => unavailable(context, error));
}

/** Clerk's answer, with what this app makes of it for a GET (redirects) and for a POST (`settlePost`). */
async function settledState(args: Args): Promise<RequestState> {
  const { request, context } = args;
  const state = await clerkState(args);
  if (!isRead(context.method)) {
    const settled = await settlePost(context, state, { ...(await clerkCheckFor(args)), signedOut: signedOutFor(args) });
    // Signed in where Clerk said otherwise: a stale token Clerk confirmed, whose claims may be minutes old.
    if (settled !== state && settled.status === "signed-in") fromStaleTokens.add(authOf(settled));
    return settled;
  }
  const sendTo = state.headers.get("location");
  if (sendTo) {
    // Clerk's SDK builds some of its redirects from the request (a development instance's
    // `__clerk_redirect_url`): they too lead only here or to Clerk's Frontend API, for data
    // requests as well, whose redirects Remix encodes in the body, past the server's guard.
    const headers = new Headers(state.headers);
    let location = safeLocation(sendTo, {
      origin: new URL(request.url).origin,
      elsewhere: [clerkFrontendOrigin(request)],
    });
    // A handshake comes back only to the browser that started it (handshake-binding.server).
    if (isHandshakeRedirect(location)) {
      const bound = await bindHandshake(request, location, signedCookieOptions());
      location = bound.location;
      for (const cookie of bound.cookies) headers.append("Set-Cookie", cookie);
    }
    headers.set("Location", location);
    throw new Response(null, { status: 307, headers });
  }
  if (state.status === "handshake") throw new Error("Clerk: handshake without a redirect");
  const page = context.dataRequest ? staleTokenPage(request, state) : null;
  if (page) throw redirectDocument(page);
  const { handshakeCookies } = await shownToClerk(args);
  const clean = context.dataRequest ? null : withoutHandshakeParams(request, handshakeCookies !== null);
  if (clean) {
    const headers = new Headers(state.headers);
    for (const cookie of handshakeCookies ?? []) headers.append("Set-Cookie", cookie);
    headers.set("Location", clean);
    headers.set("Cache-Control", "no-store");
    throw new Response(null, { status: 307, headers });
  }
  return state;
}

/**
 * The session a sign-out must end, whatever the state of its token (see
 * stale-token.server's `sessionToEnd`), or null for a signed-out browser.
 */
export async function sessionToSignOut(args: Args) {
  try {
    const session = await sessionToEnd(args.context, await clerkState(args), await clerkCheckFor(args));
    // Ending it is a call of that person's.
    if (session) args.context.payer = personPays(session.userId);
    return session;
  } catch (error) {
    return unavailable(args.context, error);
  }
}

/**
 * Clerk refreshes a stale session token only through a document (its
 * handshake). A page's data request that arrives with one (clerk-js not
 * loaded in time: a tab back from sleep) would be answered as signed out;
 * instead the browser loads the page as a document, which goes through the
 * handshake and comes back signed in. Returns the page to load, or null.
 */
function staleTokenPage(request: Request, state: RequestState): string | null {
  if (request.method !== "GET" || !staleReason(state)) return null;
  return samePage(new URL(request.url));
}

/** The request's own page, as a path that cannot read as another host (a path may begin `//`). */
function samePage(url: URL): string {
  return safeLocation(url.pathname + url.search, { origin: url.origin });
}

/** What Clerk's handshake adds to the URL it sends the browser back to. */
const HANDSHAKE_PARAMS = ["__clerk_handshake", HANDSHAKE_NONCE, HANDSHAKE_STATE, "__clerk_help", "__clerk_db_jwt"];

/**
 * The page's URL without Clerk's handshake parameters, when it has any (the
 * browser is back from the handshake; its cookies are set with this answer).
 * clerk-js would take them out of the address bar, but it may not be loaded
 * for a while, or at all: so the server redirects, as Clerk's SDK does for
 * development instances.
 */
function withoutHandshakeParams(request: Request, handshakeCookies: boolean): string | null {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (!handshakeCookies && !HANDSHAKE_PARAMS.some((name) => url.searchParams.has(name))) return null;
  for (const name of HANDSHAKE_PARAMS) url.searchParams.delete(name);
  return samePage(url);
}

export type Auth = ReturnType<RequestState["toAuth"]> & {};

const authObjects = new WeakMap<RequestState, Auth>();
const fromStaleTokens = new WeakSet<Auth>();

/**
 * False for the auth of a POST carried by a stale token that Clerk confirmed:
 * its session is active, but the claims it names (active organization, role)
 * may be minutes old, so they authorize nothing alone.
 */
export function claimsAreCurrent(auth: Auth): boolean {
  return !fromStaleTokens.has(auth);
}

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

/** Longer than any session Clerk keeps (its longest maximum lifetime is ten years): only the signature counts. */
const ANY_AGE_MS = 10 * 366 * 24 * 3_600_000;

/**
 * The session the request's session token names, however long ago the
 * token expired, if one of Clerk's keys signed it for this site (issuer and
 * authorized parties checked as ever): what sign-out's continuation is bound
 * to (sign-out-continuation.server). It proves nothing about the browser, so
 * it authorizes nothing and ends nothing on its own.
 */
export async function sessionNamedByToken(args: Args): Promise<string | null> {
  try {
    const { token, verify } = await clerkCheckFor(args);
    if (!token) return null;
    const state = await verify(token, ANY_AGE_MS);
    return state.status === "signed-in" ? (authOf(state).sessionId ?? null) : null;
  } catch (error) {
    return unavailable(args.context, error);
  }
}
