import type { RequestState } from "@clerk/backend/internal";
import type { AppLoadContext } from "@remix-run/node";
import { logEvent } from "../log.server";
import type { StaleTokenOutcome } from "../metrics.server";
import { personPays } from "../upstream/payer.server";
import { clerkRead } from "./backend-calls.server";
import { isClerkNotFound } from "./field-errors.server";

/**
 * A form sent with a session token that is stale for a timing reason only.
 * Clerk renews a stale token through its handshake, which works for a GET
 * document alone: a POST sent there (a 307 keeps the method) is lost, and a
 * data request is answered signed out. So a POST never goes there. Instead
 * ("confirm and run", docs/stale-session-tokens.md): the token must still
 * verify (signature, issuer) and have expired at most STALE_TOKEN_WINDOW_MS
 * ago, and Clerk's Backend API must say that its session is active and the
 * token's person's; then the action runs as that person. The page's next GET
 * renews the cookies through the handshake, as ever.
 */

/**
 * Clerk's reasons (its `AuthErrorReason`) for sending a request through the
 * handshake that mean "the token is stale, not wrong": expired (its reason
 * goes on with what stopped a refresh, `-refresh-non-eligible-non-get`…), not
 * valid yet, issued in the future (clock skew), older than the client's last
 * sign-in, or missing while the client says it has a session.
 */
const STALE_TOKEN_REASONS = [
  "session-token-expired",
  "session-token-nbf",
  "session-token-iat-in-the-future",
  "session-token-iat-before-client-uat",
  "client-uat-but-no-session-token",
] as const;

export type StaleReason = (typeof STALE_TOKEN_REASONS)[number];

/** The stale reason of a request's authentication, or null when its token is current, absent or wrong. */
export function staleReason(state: RequestState): StaleReason | null {
  if (state.status === "signed-in") return null;
  const reason = state.reason ?? "";
  return STALE_TOKEN_REASONS.find((stale) => reason.startsWith(stale)) ?? null;
}

/**
 * How long after its expiry a token, with Clerk's word that its session is
 * still active, may carry a form. Past that the person signs in again: a
 * token stolen from an old log or a shared computer must not stay a key for
 * as long as the session lives (a week).
 */
export const STALE_TOKEN_WINDOW_MS = 10 * 60_000;

/**
 * What this module needs of Clerk's check, from auth.server: `token` is the
 * request's session token as Clerk's rules pick it (one, whatever else the
 * request carries), if one of Clerk's keys signed it; `verify` is Clerk's own
 * verification of a token sent as a bearer (signature, issuer, authorized
 * parties) with `clockSkewInMs` of leeway on its times, giving the signed-in
 * state or a signed-out one; `authOf` is a state's auth object, built once
 * per state.
 */
export type ClerkCheck = {
  token: string | null;
  verify: (token: string, clockSkewInMs: number) => Promise<RequestState>;
  authOf: (state: RequestState) => { sessionId: string | null; userId: string | null };
};

/** The request's session token, if it verifies with `clockSkewInMs` of leeway, as Clerk's signed-in state. */
async function verifiedTokenState({ token, verify }: ClerkCheck, clockSkewInMs: number) {
  if (!token) return null;
  const state = await verify(token, clockSkewInMs);
  return state.status === "signed-in" ? state : null;
}

function record(context: AppLoadContext, reason: StaleReason | "other", outcome: StaleTokenOutcome) {
  context.metrics.staleTokenPost(outcome);
  // The reason and the outcome only: no session, user, organization or request id.
  logEvent("stale_token_post", { reason, outcome });
}

/**
 * The authentication a POST goes on with, given Clerk's: a stale token is
 * confirmed with Clerk (one Backend API read, on this path only) and stands
 * for its person if its session is still active; anything else, including a
 * handshake Clerk asked for, is signed out (`signedOut`), so that the
 * action's guard sends the person to sign-in and back. A signed-in state
 * other than Clerk's own is a confirmed stale token's: its claims (active
 * organization, role) may be up to STALE_TOKEN_WINDOW_MS old.
 */
export async function settlePost(
  context: AppLoadContext,
  state: RequestState,
  { signedOut, ...check }: ClerkCheck & { signedOut: () => Promise<RequestState> },
): Promise<RequestState> {
  if (state.status === "signed-in") return state;
  const reason = staleReason(state);
  if (!reason) return state.status === "handshake" ? signedOut() : state;
  const verified = await verifiedTokenState(check, STALE_TOKEN_WINDOW_MS);
  const claims = verified ? check.authOf(verified) : null;
  if (!verified || !claims?.sessionId || !claims.userId) {
    record(context, reason, "unverified");
    return signedOut();
  }
  const { sessionId, userId } = claims;
  // Clerk said the session (or the person) is gone: refused without a call, charged to no one.
  if (await context.orgs.goneSessions.anyGone([sessionId, userId])) {
    record(context, reason, "refused");
    return signedOut();
  }
  // The confirmation is the person's call: a token only Clerk could have signed names them.
  context.payer = personPays(userId);
  let active: boolean;
  try {
    const session = await clerkRead(context, "sessions.getSession", sessionId, (clerk) =>
      clerk.sessions.getSession(sessionId),
    );
    active = session.status === "active" && session.userId === userId;
  } catch (error) {
    if (!isClerkNotFound(error)) {
      record(context, reason, "unavailable");
      throw error;
    }
    active = false;
  }
  record(context, reason, active ? "ran" : "refused");
  return active ? verified : signedOut();
}

/**
 * The session a sign-out ends: the request's, from its session token if its
 * signature verifies and it expired at most STALE_TOKEN_WINDOW_MS ago, as
 * for a rescued form. Ending a session needs no proof that it is still
 * active, and must not wait for a fresh token: a person who signs out after
 * a few minutes away is signed out, in Clerk too. An older token ends
 * nothing in Clerk (a token from an old log must not end someone's live
 * session); the browser's cookies are cleared all the same. Null when there
 * is no such session.
 */
export async function sessionToEnd(
  context: AppLoadContext,
  state: RequestState,
  check: ClerkCheck,
): Promise<{ sessionId: string; userId: string } | null> {
  const current = state.status === "signed-in" ? check.authOf(state) : null;
  if (current?.sessionId && current.userId) return { sessionId: current.sessionId, userId: current.userId };
  const verified = await verifiedTokenState(check, STALE_TOKEN_WINDOW_MS);
  const claims = verified ? check.authOf(verified) : null;
  if (!claims?.sessionId || !claims.userId) return null;
  // Ended already (Clerk said so): nothing to end, and no call of its owner's spent on it.
  if (await context.orgs.goneSessions.anyGone([claims.sessionId, claims.userId])) return null;
  record(context, staleReason(state) ?? "other", "signed_out");
  return { sessionId: claims.sessionId, userId: claims.userId };
}
