import type { Organization, OrganizationMembership } from "@clerk/backend";
import type { AppLoadContext } from "@remix-run/node";
import { cachedClerkRead, clerkRead } from "../clerk/backend-calls.server";
import type { OrgProfile } from "./org-caches.server";
import type { OrgRole, OrgSummary } from "./organizations";

function toProfile(org: Organization): OrgProfile {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug || null,
    imageUrl: org.hasImage ? org.imageUrl : null,
    membersCount: org.membersCount ?? null,
  };
}

function toSummary(m: OrganizationMembership): OrgSummary {
  return { ...toProfile(m.organization), role: m.role as OrgRole };
}

/** An organization's name, image and member count (kept a few seconds per organization). */
export function organizationProfile(context: AppLoadContext, orgId: string): Promise<OrgProfile> {
  return context.orgs.profiles.get(orgId, () =>
    clerkRead(context, "organizations.getOrganization", orgId, (clerk) =>
      clerk.organizations.getOrganization({ organizationId: orgId, includeMembersCount: true }),
    ).then(toProfile),
  );
}

/**
 * The signed-in user's organizations, by name, through the short per-user
 * cache; `fresh` reads them again from Clerk (once per request).
 */
export function listMyOrganizations(
  context: AppLoadContext,
  userId: string,
  { fresh = false } = {},
): Promise<OrgSummary[]> {
  return cachedClerkRead(
    context,
    { cache: context.orgs.memberships, name: "users.getOrganizationMembershipList", key: userId, fresh },
    (clerk) => clerk.users.getOrganizationMembershipList({ userId, limit: 100 }),
    ({ data }) => data.map(toSummary).sort((a, b) => a.name.localeCompare(b.name)),
  );
}

/**
 * Clerk's components change an organization from the browser (its name, slug
 * or logo), so the server learns of it only when told: forget this instance's
 * copies of it. Other instances' copies expire within their few seconds.
 */
export function forgetOrganization(context: AppLoadContext, userId: string, orgId: string): void {
  context.orgs.memberships.forget(userId);
  context.orgs.invitations.forget(userId);
  context.orgs.profiles.forget(orgId);
  context.orgs.latestMembers.forget(orgId);
}

/**
 * The person's organizations just after they left or deleted `goneOrgId`
 * through Clerk's components: read again from Clerk if this instance's copy
 * still lists it.
 */
export async function listMyOrganizationsWithout(
  context: AppLoadContext,
  userId: string,
  goneOrgId: string | null,
): Promise<OrgSummary[]> {
  const list = await listMyOrganizations(context, userId);
  if (!goneOrgId || !list.some((o) => o.id === goneOrgId)) return list;
  forgetOrganization(context, userId, goneOrgId);
  return listMyOrganizations(context, userId, { fresh: true });
}
