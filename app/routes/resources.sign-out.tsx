import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form } from "@remix-run/react";
import { getRequestAuth } from "~/lib/clerk/auth.server";
import { clerkWrite } from "~/lib/clerk/backend-calls.server";
import { clearSessionCookies } from "~/lib/clerk/session-cookies.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Sign out — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getRequestAuth(args);
  if (!userId) throw redirect("/");
  return null;
}

/**
 * Ends the session on the server, so signing out works without JavaScript:
 * revokes it through Clerk's Backend API and clears the session cookies.
 */
export async function action(args: ActionFunctionArgs) {
  const { sessionId, userId } = await getRequestAuth(args);
  await enforceRateLimit(args.context, "sign-out", userId);
  if (sessionId) {
    // The upstream path logs a failure; the cookies are cleared either way, and
    // an unrevoked session token still expires within a minute and is never
    // refreshed without the client.
    await clerkWrite(args.context, "sessions.revokeSession", (clerk) => clerk.sessions.revokeSession(sessionId)).catch(
      () => undefined,
    );
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
