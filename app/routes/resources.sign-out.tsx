import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import {
  json,
  redirect,
  redirectDocument,
  type ActionFunctionArgs,
  type AppLoadContext,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form } from "@remix-run/react";
import { getRequestAuth, sessionNamedByToken, sessionToSignOut } from "~/lib/clerk/auth.server";
import { clerkWrite } from "~/lib/clerk/backend-calls.server";
import { clerkErrorCode } from "~/lib/clerk/field-errors.server";
import { clearSessionCookies } from "~/lib/clerk/session-cookies.server";
import {
  endSignOutContinuation,
  readSignOutContinuation,
  startSignOutContinuation,
} from "~/lib/clerk/sign-out-continuation.server";
import { signedCookieOptions } from "~/lib/http/cookies.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { NOT_INDEXED } from "~/lib/http/meta";
import { isUnavailable, refusalMessage } from "~/lib/upstream/refusals.server";

const NOT_SIGNED_OUT =
  "You are still signed in: Clerk, which keeps your session, did not answer. Please try again in a moment.";

const SIGN_OUT_PATH = "/resources/sign-out";

export const meta: MetaFunction = () => [{ title: "Sign out — Teamwork" }, NOT_INDEXED];

/**
 * The page, and the second half of a sign-out sent with an old token (see
 * the action). The browser comes here carrying the continuation and its old
 * token; Clerk's handshake, which `getRequestAuth` sends a document with a
 * stale token through, reads Clerk's own client cookie and brings back a
 * fresh token, or none if the client is signed out. A fresh token of the
 * continuation's session is what ends it: as a sign-out with a current
 * token does. A continuation alone (signed out, or another session) ends
 * nothing.
 */
export async function loader(args: LoaderFunctionArgs) {
  const options = signedCookieOptions();
  const continuation = await readSignOutContinuation(args.request, options);
  const { userId, sessionId } = await getRequestAuth(args);
  if (!continuation) {
    if (!userId) throw redirect("/");
    return null;
  }
  const ended = await endSignOutContinuation(options);
  if (!userId) throw signedOutAtHome(args.request, [ended]);
  if (sessionId === continuation.sessionId) {
    await enforceRateLimit(args.context, "sign-out", userId);
    await revoke(args.context, sessionId);
    throw signedOutAtHome(args.request, [ended]);
  }
  // Signed in to another session since Sign out was pressed: that one is its person's to end, on this page.
  return json(null, { headers: { "Set-Cookie": ended } });
}

/**
 * Ends the session on the server, so signing out works without JavaScript:
 * revokes it through Clerk's Backend API and clears the session cookies. The
 * session is ended whatever the state of its token. A token that expired at
 * most STALE_TOKEN_WINDOW_MS ago names it (a page left open a few minutes).
 * An older one ends nothing here, since it may come from an old log; but
 * clearing the cookies alone would leave Clerk's client signed in, and the
 * next handshake would sign the browser back in (the next person on a shared
 * computer would be the last). So the browser is sent to this route's GET
 * with a continuation bound to the session the old token names, where the
 * handshake proves it still holds that session (the loader). If Clerk cannot
 * be reached the person is told so, still signed in, rather than left
 * thinking they are signed out while Clerk keeps the session.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await sessionToSignOut(args);
  await enforceRateLimit(args.context, "sign-out", session?.userId ?? null);
  if (session) {
    await revoke(args.context, session.sessionId);
    return signedOutAtHome(args.request);
  }
  const named = await sessionNamedByToken(args);
  if (!named) return signedOutAtHome(args.request);
  // The session cookies are kept: their stale token is what sends the GET through the handshake.
  // A document either way (a data request would be answered signed out instead).
  return redirectDocument(SIGN_OUT_PATH, {
    status: 303,
    headers: {
      "Set-Cookie": await startSignOutContinuation(named, signedCookieOptions()),
      "Cache-Control": "no-store",
    },
  });
}

/** Revokes the session in Clerk; a 503 saying the person is still signed in when Clerk cannot be reached. */
async function revoke(context: AppLoadContext, sessionId: string): Promise<void> {
  // Revoking is idempotent, so it is retried as a read; a 4xx means the
  // session is already over (revoked, ended, removed), which is what was asked.
  await clerkWrite(context, "sessions.revokeSession", (clerk) => clerk.sessions.revokeSession(sessionId), {
    idempotent: true,
  }).catch((error: unknown) => {
    // The catalogue's 503, or the person's own 429 (their allowance of Clerk calls spent), its
    // Retry-After kept, saying what it means here.
    if (isUnavailable(error)) {
      const message = error.status === 429 ? `You are still signed in. ${refusalMessage(error)}` : NOT_SIGNED_OUT;
      throw json({ message }, { status: error.status, headers: error.headers });
    }
    if (clerkErrorCode(error) === null) throw error;
  });
}

/**
 * To the home page, the session cookies cleared (and `extraCookies` set).
 * `Clear-Site-Data: "cache"` drops what the browser kept of the person's
 * pages: their disk copies (pages are `private, no-cache`, not `no-store`:
 * server/personal-answers.ts) and, in Chromium, the pages the back/forward
 * cache holds, so Back after a sign-out shows no signed-in page, with
 * JavaScript off too (with it, app/lib/restored-page.ts also reloads one).
 */
function signedOutAtHome(request: Request, extraCookies: string[] = []): Response {
  const headers = new Headers();
  for (const cookie of [...clearSessionCookies(request), ...extraCookies]) headers.append("Set-Cookie", cookie);
  headers.set("Clear-Site-Data", '"cache"');
  headers.set("Location", "/");
  return new Response(null, { status: 303, headers });
}

export default function SignOutPage() {
  return (
    <Flex justify="center">
      <Card size="4" style={{ width: "100%", maxWidth: "28rem" }}>
        <Heading as="h1" size="6" mb="2">
          Sign out
        </Heading>
        <Text as="p" color="gray" mb="4">
          You will need to sign in again to see your organizations.
        </Text>
        <Form method="post">
          <Button type="submit" size="3">
            Sign out
          </Button>
        </Form>
      </Card>
    </Flex>
  );
}

// The page's own boundary: the navigation bar still shows the person, who is still signed in.
export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
