import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form } from "@remix-run/react";
import { getRequestAuth, sessionToSignOut } from "~/lib/clerk/auth.server";
import { clerkWrite } from "~/lib/clerk/backend-calls.server";
import { clerkErrorCode } from "~/lib/clerk/field-errors.server";
import { clearSessionCookies } from "~/lib/clerk/session-cookies.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { NOT_INDEXED } from "~/lib/http/meta";
import { isUnavailable } from "~/lib/upstream/request-scope.server";

const NOT_SIGNED_OUT =
  "You are still signed in: Clerk, which keeps your session, did not answer. Please try again in a moment.";

export const meta: MetaFunction = () => [{ title: "Sign out — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getRequestAuth(args);
  if (!userId) throw redirect("/");
  return null;
}

/**
 * Ends the session on the server, so signing out works without JavaScript:
 * revokes it through Clerk's Backend API and clears the session cookies. The
 * session is ended whatever the state of its token (a token that expired
 * while the page sat open still names it). If Clerk cannot be reached the
 * person is told so, still signed in, rather than left thinking they are
 * signed out while Clerk keeps the session.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await sessionToSignOut(args);
  await enforceRateLimit(args.context, "sign-out", session?.userId ?? null);
  if (session) {
    const { sessionId } = session;
    // Revoking is idempotent, so it is retried as a read; a 4xx means the
    // session is already over (revoked, ended, removed), which is what was asked.
    await clerkWrite(args.context, "sessions.revokeSession", (clerk) => clerk.sessions.revokeSession(sessionId), {
      idempotent: true,
    }).catch((error: unknown) => {
      // The catalogue's 503 (its Retry-After kept), saying what it means here.
      if (isUnavailable(error)) throw json({ message: NOT_SIGNED_OUT }, { status: 503, headers: error.headers });
      if (clerkErrorCode(error) === null) throw error;
    });
  }
  const headers = new Headers();
  for (const cookie of clearSessionCookies(args.request)) headers.append("Set-Cookie", cookie);
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
