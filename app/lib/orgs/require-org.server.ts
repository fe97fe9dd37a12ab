import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { claimsAreCurrent, requireSignedIn, type Auth } from "../clerk/auth.server";
import { isClerkNotFound } from "../clerk/field-errors.server";
import { listMyOrganizations, organizationProfile } from "./memberships.server";
import { findOrganization, type OrgSummary } from "./organizations";

// A slug as Clerk allows it, or an organization id (for organizations without a slug).
const ORG_SEGMENT = /^(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?|org_[A-Za-z0-9]{1,64})$/;

/** The same 404 for an unknown organization and for one you are not in, so nothing leaks. */
export function organizationNotFound(): never {
  throw json({ message: "Not found" }, { status: 404 });
}

const isView = (request: Request) => request.method === "GET" || request.method === "HEAD";

/**
 * Whether the verified session token names the URL's organization and may be
 * believed about it: not a stale token's (its claims may be minutes old), and
 * not made before Clerk's webhooks said the person's memberships changed.
 */
function tokenNames(args: LoaderFunctionArgs, auth: Auth & { userId: string }, segment: string): boolean {
  const { orgId, orgSlug, sessionClaims } = auth;
  if (!orgId || !(segment === orgId || segment === orgSlug) || !claimsAreCurrent(auth)) return false;
  const issuedAt = typeof sessionClaims?.iat === "number" ? sessionClaims.iat * 1000 : 0;
  return !args.context.orgs.membershipChanges.changedSince(auth.userId, issuedAt);
}

/**
 * The organization the URL names (by slug or id), if the signed-in user
 * belongs to it: signed out → redirect to sign-in; not a member or no such
 * organization → 404.
 *
 * Viewing the session's active organization asks Clerk nothing to authorize:
 * the verified session token names it and the person's role in it (a token
 * lives 60 seconds, so a removed member's access ends within that, or at
 * once where Clerk's webhooks are configured). Writes,
 * any other organization, a slug the organization no longer has, and the
 * pages rendered after a stale token's form (its claims may be minutes old)
 * are checked against the person's memberships.
 */
export async function requireOrgMembership(args: LoaderFunctionArgs): Promise<{ userId: string; org: OrgSummary }> {
  const auth = await requireSignedIn(args);
  const { userId, orgId, orgRole } = auth;
  const segment = args.params.slug ?? "";
  if (!ORG_SEGMENT.test(segment)) organizationNotFound();
  if (orgId && orgRole && isView(args.request) && tokenNames(args, auth, segment)) {
    // Deleted since the token was made: the same 404 as for any other organization.
    const profile = await organizationProfile(args.context, orgId).catch((error: unknown) =>
      isClerkNotFound(error) ? organizationNotFound() : Promise.reject(error),
    );
    // A token made before a slug change still names the old slug: only the
    // person's memberships (below) say whether the URL's slug is current.
    if (segment === orgId || segment === profile.slug) return { userId, org: { ...profile, role: orgRole } };
  }
  let org = findOrganization(await listMyOrganizations(args.context, userId), segment);
  // The list may be a kept copy from before the person joined or created it
  // (on another instance, or in Clerk's components): ask Clerk before a 404,
  // once for all of the request's loaders, and once per person per 10 s.
  if (!org) {
    const { context } = args;
    const fresh = await context.upstream.once(`memberships before a 404|${userId}`, async () =>
      context.orgs.mayRereadMemberships(userId) ? listMyOrganizations(context, userId, { fresh: true }) : null,
    );
    org = fresh && findOrganization(fresh, segment);
  }
  if (!org) organizationNotFound();
  return { userId, org };
}

type OrgAccess = { id: string; role: OrgSummary["role"] };

/**
 * requireOrgMembership, and the page's own read of the organization started
 * beside it rather than after it. When the verified session token names the
 * URL's organization (the active one: the usual case), `read` starts at once
 * with the token's id and role, while the guard reads the organization's
 * profile; a cold page then waits on one Clerk round trip, not two. Its
 * result is used only if the guard agrees on the organization and the role;
 * otherwise (another organization, a stale token) `read` runs again after
 * the guard, as before.
 */
export async function requireOrgMembershipWith<T>(
  args: LoaderFunctionArgs,
  read: (org: OrgAccess) => Promise<T>,
): Promise<{ userId: string; org: OrgSummary; data: T }> {
  const auth = await requireSignedIn(args);
  const { orgId, orgRole } = auth;
  const named =
    orgId && orgRole && tokenNames(args, auth, args.params.slug ?? "") ? { id: orgId, role: orgRole } : null;
  const early = named ? read(named) : null;
  // Settled by whichever path uses it; a guard that refuses leaves it unused.
  early?.catch(() => undefined);
  const { userId, org } = await requireOrgMembership(args);
  const data = early && named?.id === org.id && named.role === org.role ? await early : await read(org);
  return { userId, org, data };
}
