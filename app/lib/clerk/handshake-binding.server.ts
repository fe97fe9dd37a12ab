import { createCookie } from "@remix-run/node";
import { randomBytes } from "node:crypto";
import { parse } from "cookie";
import { createExpiringKeys } from "../expiring-keys";
import type { SignedCookieOptions } from "../http/cookies.server";

/**
 * Clerk's handshake brings a browser back with a nonce (or a handshake token)
 * that sets whichever session it was made for. Left alone, anyone could hand
 * theirs to someone else (`/orgs?__clerk_handshake_nonce=…` in a link) and
 * sign that browser into their own account: login CSRF. So the app binds
 * each handshake to the browser that started it, as OAuth 2.0's `state` does
 * (RFC 6749 §10.12): its redirect to Clerk carries a random state in the
 * return URL, and sets a short-lived, signed, HttpOnly, SameSite=Lax cookie
 * named after it. A return is honoured only with the matching cookie, and
 * only once across the fleet (`claims`); otherwise its nonce and handshake
 * token are dropped before anything reads them, at no cost to Clerk, and the
 * request goes on as the browser already was (docs/decisions/0012).
 *
 * One cookie per state, so tabs that go through the handshake at once do not
 * overwrite each other's; each lives two minutes, and the return clears its
 * own.
 */

/** The return URL's parameter holding the state. */
export const HANDSHAKE_STATE = "__handshake_state";
/** How long a browser has to come back from Clerk's handshake (usually well under a second). */
export const HANDSHAKE_STATE_TTL_MS = 2 * 60_000;
/** Past this many handshakes under way in one browser, the oldest are dropped (a cookie header stays small). */
const MAX_PENDING = 4;

const COOKIE_PREFIX = "__hs_";
const STATE = /^[A-Za-z0-9_-]{22}$/;
const PURPOSE = "handshake";

type Payload = { purpose: typeof PURPOSE; expiresAt: number };

/** Marks a state used, once across the fleet: true the first time (Redis SET NX, or this process's memory). */
export type HandshakeClaims = { claim(state: string, ttlMs: number): Promise<boolean> };

const stateCookie = (state: string, { secret, secure }: SignedCookieOptions) =>
  createCookie(`${COOKIE_PREFIX}${state}`, { path: "/", httpOnly: true, sameSite: "lax", secure, secrets: [secret] });

const isPayload = (value: unknown): value is Payload =>
  typeof value === "object" &&
  value !== null &&
  (value as Payload).purpose === PURPOSE &&
  typeof (value as Payload).expiresAt === "number";

/** Whether a redirect of Clerk's SDK goes to its Frontend API's handshake. */
export function isHandshakeRedirect(location: string): boolean {
  try {
    return new URL(location).pathname.endsWith("/v1/client/handshake");
  } catch {
    return false;
  }
}

/**
 * Clerk's redirect to its handshake, with a new state in the URL it brings
 * the browser back to, and the Set-Cookie values that bind it to this
 * browser (the state's cookie, and the ends of the oldest pending ones past
 * MAX_PENDING). A redirect with no return URL is left as it is.
 */
export async function bindHandshake(
  request: Request,
  location: string,
  options: SignedCookieOptions,
): Promise<{ location: string; cookies: string[] }> {
  const to = new URL(location);
  const back = to.searchParams.get("redirect_url");
  if (!back) return { location, cookies: [] };
  const state = randomBytes(16).toString("base64url");
  const returnUrl = new URL(back, request.url);
  returnUrl.searchParams.set(HANDSHAKE_STATE, state);
  to.searchParams.set("redirect_url", returnUrl.toString());
  const expiresAt = (options.now ?? Date.now)() + HANDSHAKE_STATE_TTL_MS;
  const cookies = [
    await stateCookie(state, options).serialize({ purpose: PURPOSE, expiresAt } satisfies Payload, {
      maxAge: HANDSHAKE_STATE_TTL_MS / 1000,
    }),
  ];
  const pending = pendingStates(request);
  for (const old of pending.slice(0, Math.max(0, pending.length - (MAX_PENDING - 1))))
    cookies.push(await endState(old, options));
  return { location: to.toString(), cookies };
}

/** The states of the handshakes this browser has under way (its cookies' names), oldest first as sent. */
function pendingStates(request: Request): string[] {
  return Object.keys(parse(request.headers.get("Cookie") ?? ""))
    .filter((name) => name.startsWith(COOKIE_PREFIX))
    .map((name) => name.slice(COOKIE_PREFIX.length))
    .filter((state) => STATE.test(state));
}

const endState = (state: string, options: SignedCookieOptions) =>
  stateCookie(state, options).serialize("", { maxAge: 0 });

/**
 * Whether the request's handshake return was started by this browser: the
 * URL's state has its signed, unexpired cookie here, and is claimed now for
 * the first time across the fleet. `end` is the Set-Cookie value that clears
 * the state's cookie (null when the URL names no well-formed state).
 */
export async function checkHandshakeBinding(
  request: Request,
  claims: HandshakeClaims,
  options: SignedCookieOptions,
): Promise<{ bound: boolean; end: string | null }> {
  const state = new URL(request.url).searchParams.get(HANDSHAKE_STATE);
  if (state === null || !STATE.test(state)) return { bound: false, end: null };
  const end = await endState(state, options);
  const value: unknown = await stateCookie(state, options).parse(request.headers.get("Cookie"));
  const now = (options.now ?? Date.now)();
  if (!isPayload(value) || value.expiresAt <= now) return { bound: false, end };
  // Once: a second return with the same state (a replayed request, a lost answer) is not honoured again.
  // When the store cannot say (Redis failing), the cookie alone binds it: the person still gets signed in,
  // and a link handed to another browser still signs no one in (it lacks the cookie).
  const first = await claims.claim(state, value.expiresAt - now).catch(() => true);
  return { bound: first, end };
}

/** The claims of a single instance (no Redis): at most `max` states, each kept until it expires. */
export function memoryHandshakeClaims({ max = 10_000, now = Date.now } = {}): HandshakeClaims {
  const claimed = createExpiringKeys({ max, now });
  return { claim: async (state, ttlMs) => claimed.addIfAbsent(state, ttlMs) };
}
