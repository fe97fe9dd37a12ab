import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { getRequestAuth } from "~/lib/clerk/auth.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { forgetOrganization } from "~/lib/orgs/memberships.server";
import { leftOrganization } from "~/lib/orgs/organizations";
import { openInvitations } from "~/lib/orgs/my-invitations.server";
import { invitationsOrNull, switcherOrganizations } from "~/lib/orgs/switcher.server";
import { UPSTREAM_POLICY } from "~/lib/upstream/policy.server";

/**
 * The switcher's list and the invitations waiting for the person, loaded
 * by the browser when the switcher is first opened, pointed at or focused,
 * or when the page is idle: no page waits on it. Kept a few seconds by the browser; never by shared caches. `?left=`
 * names an organization the person just left or deleted, so it is dropped now.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { userId } = await getRequestAuth(args);
  if (!userId)
    return json({ organizations: null, invitations: null }, { status: 401, headers: { "Cache-Control": "no-store" } });
  const gone = leftOrganization(new URL(args.request.url).searchParams);
  const [organizations, invitations] = await Promise.all([
    switcherOrganizations(args.request, args.context, userId, gone),
    invitationsOrNull(args.request, args.context, userId),
  ]);
  if (!organizations) {
    const retryAfter = args.context.retryAfter.seconds ?? UPSTREAM_POLICY.unavailableRetryAfterSeconds;
    return json(
      { organizations: null, invitations: null },
      { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": String(retryAfter) } },
    );
  }
  return json(
    { organizations, invitations: openInvitations(invitations, organizations) },
    { headers: { "Cache-Control": "private, max-age=5", Vary: "Cookie" } },
  );
}

/**
 * The browser says Clerk's components just changed the session's active
 * organization (renamed it, changed its slug or logo): this instance forgets
 * its copies, and the page's revalidation reads them again. Only the active
 * organization, so nobody can keep another's copies from being kept; at most
 * 30 times in 10 minutes per person (past that a 429: the copies then expire
 * within their few seconds, or on Clerk's webhook).
 */
export async function action(args: ActionFunctionArgs) {
  const { userId, orgId } = await getRequestAuth(args);
  if (!userId) return json({ message: "Sign in first." }, { status: 401 });
  const form = await args.request.formData().catch(() => null);
  const changed = form?.get("organizationId");
  if (typeof changed !== "string" || changed !== orgId) {
    return json({ message: "Only the active organization can be refreshed." }, { status: 403 });
  }
  // Each moves six caches' generations in Redis: counted per person.
  await enforceRateLimit(args.context, "organization-refresh", userId);
  forgetOrganization(args.context, userId, changed);
  return json({ ok: true });
}

export type OrganizationsLoader = typeof loader;
