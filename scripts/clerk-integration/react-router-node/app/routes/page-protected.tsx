// A page for signed-in people only, as Clerk's next-app-router template's /page-protected (auth.protect()):
// anyone else, a pending session's person too, is sent to sign in and brought back here after.
import { redirect } from "react-router";
import { getAuth } from "@clerk/react-router/server";
import type { LoaderFunctionArgs } from "react-router";

export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getAuth(args);
  if (!userId) throw redirect(`/sign-in?redirect_url=${encodeURIComponent(args.request.url)}`);
  return null;
}

export default function PageProtected() {
  return <div>Protected</div>;
}
