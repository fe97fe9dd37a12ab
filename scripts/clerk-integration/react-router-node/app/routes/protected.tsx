// Clerk's template's /protected (its loader sends a signed-out person to /sign-in; the page shows
// <UserProfile/> and the user's name and address), with one difference: <UserProfile/> is drawn only
// while someone is signed in. The @nextjs specs this app stands in for end on /protected signed in
// (redirects) and sign out there in their afterEach; the template mounts <UserProfile/> whatever the
// state, so after a client-side sign-out clerk-js's development build throws
// `cannot_render_user_missing` from it, the root's error boundary takes the place of <ClerkProvider>,
// and clerk-js's sign-out, waiting for the router's navigation to finish, never returns. Clerk's
// next-app-router template's /protected draws no Clerk component, so at Clerk these specs never meet it.
import { redirect } from "react-router";
import { Show, UserProfile } from "@clerk/react-router";
import { clerkClient, getAuth } from "@clerk/react-router/server";
import type { LoaderFunctionArgs } from "react-router";
import { useLoaderData } from "react-router";

export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getAuth(args);
  if (!userId) return redirect("/sign-in");
  const user = await clerkClient(args).users.getUser(userId);
  return { firstName: user.firstName, emailAddress: user.emailAddresses[0].emailAddress };
}

export default function Protected() {
  const { firstName, emailAddress } = useLoaderData<typeof loader>();
  return (
    <div>
      <h1>Protected</h1>
      <Show when="signed-in">
        <UserProfile />
      </Show>
      <ul>
        <li>First name: {firstName}</li>
        <li>Email: {emailAddress}</li>
      </ul>
    </div>
  );
}
