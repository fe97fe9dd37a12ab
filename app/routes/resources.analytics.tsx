import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { optOutCookie } from "~/lib/analytics/privacy.server";
import { isProduction } from "~/lib/env.server";
import { readFormData } from "~/lib/http/forms.server";
import { safeRedirectPath } from "~/lib/http/safe-redirect";

/**
 * Turns usage analytics off (or back on) for this browser: a cookie, so the
 * server stops too. A plain form post that redirects back, so it works
 * without JavaScript.
 */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const choice = form.get("analytics");
  if (choice !== "on" && choice !== "off") {
    throw new Response("Choose analytics on or off.", { status: 400, headers: { "Content-Type": "text/plain" } });
  }
  return redirect(safeRedirectPath(form.get("redirectTo")), {
    status: 303,
    headers: { "Set-Cookie": optOutCookie(choice === "off", isProduction()) },
  });
}

export function loader() {
  return redirect("/");
}
