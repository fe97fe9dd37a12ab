import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { getRequestAuth } from "~/lib/clerk/auth.server";
import { switcherOrganizations } from "~/lib/orgs/switcher.server";
import { UPSTREAM_POLICY } from "~/lib/upstream/policy.server";

/**
 * The switcher's list, loaded by the browser when the switcher is first
 * opened, pointed at or focused, or when the page is idle: no page waits on
 * it. Kept a few seconds by the browser; never by shared caches.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getRequestAuth(args);
  if (!userId) return json({ organizations: null }, { status: 401, headers: { "Cache-Control": "no-store" } });
  const organizations = await switcherOrganizations(args.request, args.context, userId);
  if (!organizations) {
    const retryAfter = args.context.retryAfter.seconds ?? UPSTREAM_POLICY.unavailableRetryAfterSeconds;
    return json(
      { organizations: null },
      { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": String(retryAfter) } },
    );
  }
  return json({ organizations }, { headers: { "Cache-Control": "private, max-age=5", Vary: "Cookie" } });
}

export type OrganizationsLoader = typeof loader;
