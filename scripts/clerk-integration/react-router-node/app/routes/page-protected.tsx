// A page for signed-in people only, as Clerk's next-app-router template's /page-protected (auth.protect()):
// anyone else is sent to sign in and brought back here after; a person whose session is pending (a
// session task to do) to the sign-in's tasks, as @clerk/backend's redirectToSignIn does for auth.protect()
// (createRedirect: `${signInUrl}/tasks` for a pending session), which a multi-session instance's <SignIn/>
// needs (it goes to the task by itself only on a single-session instance).
import { redirect } from "react-router";
import { getAuth } from "@clerk/react-router/server";
import type { LoaderFunctionArgs } from "react-router";

export async function loader(args: LoaderFunctionArgs) {
  const { userId, sessionStatus } = await getAuth(args, { treatPendingAsSignedOut: false });
  const back = `redirect_url=${encodeURIComponent(args.request.url)}`;
  if (userId && sessionStatus === "pending") throw redirect(`/sign-in/tasks?${back}`);
  if (!userId) throw redirect(`/sign-in?${back}`);
  return null;
}

export default function PageProtected() {
  return <div>Protected</div>;
}
