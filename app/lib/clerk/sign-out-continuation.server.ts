import { createCookie } from "@remix-run/node";
import type { SignedCookieOptions } from "../http/cookies.server";

/**
 * Sign-out's continuation (docs/stale-session-tokens.md, "Sign-out with an
 * old token"). A session token that expired more than STALE_TOKEN_WINDOW_MS
 * ago ends nothing in Clerk: it may come from an old log. Yet the browser
 * that sends it with its Sign out may still hold Clerk's client, which the
 * next handshake would sign straight back in. So the sign-out hands that
 * browser this cookie, naming the session the old token names, and sends it
 * through Clerk's handshake: only a fresh token of that same session, which
 * only the handshake can give (it reads Clerk's own client cookie), ends it.
 *
 * A cookie rather than a URL parameter: it stays with the browser that sent
 * the sign-out (a write, so from this site only), where a parameter could be
 * copied into a link that signs someone else's browser out. Signed with
 * SESSION_SECRET, it is good for one purpose, one session and two minutes.
 */

/** How long the browser has to come back from Clerk's handshake (usually well under a second). */
export const CONTINUATION_TTL_MS = 2 * 60_000;

const PURPOSE = "sign-out";

type Payload = { purpose: typeof PURPOSE; sessionId: string; expiresAt: number };

function continuationCookie({ secret, secure }: SignedCookieOptions) {
  // `/resources` covers the sign-out route's document and its data requests (`/resources/sign-out.data`).
  return createCookie("__sign_out", { path: "/resources", httpOnly: true, sameSite: "lax", secure, secrets: [secret] });
}

function isPayload(value: unknown): value is Payload {
  const v = value as Partial<Payload> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    v.purpose === PURPOSE &&
    typeof v.sessionId === "string" &&
    typeof v.expiresAt === "number"
  );
}

/** The Set-Cookie value that lets this browser finish signing `sessionId` out after the handshake. */
export function startSignOutContinuation(sessionId: string, options: SignedCookieOptions): Promise<string> {
  const expiresAt = (options.now ?? Date.now)() + CONTINUATION_TTL_MS;
  const payload: Payload = { purpose: PURPOSE, sessionId, expiresAt };
  return continuationCookie(options).serialize(payload, { maxAge: CONTINUATION_TTL_MS / 1000 });
}

/** The session the request's continuation names, if it is this app's, for sign-out, and not yet expired; else null. */
export async function readSignOutContinuation(
  request: Request,
  options: SignedCookieOptions,
): Promise<{ sessionId: string } | null> {
  const value: unknown = await continuationCookie(options).parse(request.headers.get("Cookie"));
  if (!isPayload(value) || value.expiresAt <= (options.now ?? Date.now)()) return null;
  return { sessionId: value.sessionId };
}

/** The Set-Cookie value that ends the continuation (it is used once). */
export function endSignOutContinuation(options: SignedCookieOptions): Promise<string> {
  return continuationCookie(options).serialize("", { maxAge: 0 });
}
