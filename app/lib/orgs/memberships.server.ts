import type { Organization, OrganizationMembership } from "@clerk/backend";
import type { AppLoadContext } from "@remix-run/node";
import type { AppServices } from "../load-context.server";
import { readUpstreamOutsidePages } from "../upstream/request-scope.server";
import { forgetMembersOf } from "./members.server";
import { cachedClerkRead, clerkRead } from "../clerk/backend-calls.server";
import { isClerkNotFound } from "../clerk/field-errors.server";
import { rememberOrganizationGone, type OrgProfile } from "../cache/org-caches.server";
import { type OrgRole, type OrgSummary, type MyMembership } from "./organizations";

function toProfile(org: Organization): OrgProfile {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug || null,
    imageUrl: org.hasImage ? org.imageUrl : null,
    membersCount: org.membersCount ?? null,
    // So that a webhook's older payload, delivered late, does not overwrite what Clerk answered since.
    updatedAt: org.updatedAt,
  };
}

/** A membership as kept, from Clerk's Backend API's (its SDK's object). */
export const toMembership = (m: OrganizationMembership): MyMembership => ({
  orgId: m.organization.id,
  role: m.role as OrgRole,
  updatedAt: m.updatedAt,
});

/**
 * The ids of a person's organizations, from their kept memberships or one
 * read (outside any page: for Clerk's webhooks, held back after a 429).
 */
export async function organizationIdsOf(
  services: Pick<AppServices, "clerk" | "orgs" | "backoff" | "metrics" | "clerkBudget">,
  userId: string,
): Promise<string[]> {
  const memberships = await services.orgs.memberships.get(userId, () =>
    readUpstreamOutsidePages(services, "clerk.users.getOrganizationMembershipList", () =>
      services.clerk.users.getOrganizationMembershipList({ userId, limit: 100 }),
    ).then(({ data }) => data.map(toMembership)),
  );
  return memberships.map((m) => m.orgId);
}

/** An organization's name, image and member count (kept a few seconds per organization). */
export function organizationProfile(context: AppLoadContext, orgId: string): Promise<OrgProfile> {
  return context.orgs.profiles.get(orgId, () =>
    clerkRead(
      context,
      "organizations.getOrganization",
      orgId,
      (clerk) => clerk.organizations.getOrganization({ organizationId: orgId, includeMembersCount: true }),
      // Its name and picture display; who may see it is the memberships' to say.
      { deferrable: true },
    ).then(toProfile, async (error: unknown) => {
      if (isClerkNotFound(error)) await rememberOrganizationGone(context.orgs, orgId);
      throw error;
    }),
  );
}

/**
 * The signed-in user's organizations, by name; `fresh` reads them again from
 * Clerk (once per request). A person's memberships (organization and role)
 * are kept per person; what each organization is called, per organization,
 * so that a rename changes one kept answer, not every member's. The read of
 * the memberships brings the organizations' profiles too: they are kept.
 */
export async function listMyOrganizations(
  context: AppLoadContext,
  userId: string,
  { fresh = false } = {},
): Promise<OrgSummary[]> {
  // Profiles read with the memberships are kept unless one was forgotten meanwhile (a rename's webhook, say).
  const profilesMark = context.orgs.profiles.mark();
  const memberships = await cachedClerkRead(
    context,
    {
      cache: context.orgs.memberships,
      name: "users.getOrganizationMembershipList",
      key: userId,
      fresh,
      // A re-read (`?left=`) refreshes what the kept list already says; a first read authorizes.
      deferrable: fresh,
    },
    (clerk) => clerk.users.getOrganizationMembershipList({ userId, limit: 100 }),
    ({ data }) =>
      data.map((m): MyMembership => {
        const profile = toProfile(m.organization);
        // (Clerk may leave the member count out of a membership's organization: the profile's own read has it.)
        if (profile.membersCount !== null) context.orgs.profiles.set(profile.id, profile, profilesMark);
        return toMembership(m);
      }),
  );
  const organizations = await Promise.all(
    memberships.map(async ({ orgId, role }) => {
      // Deleted since the memberships were kept: not listed.
      const profile = await organizationProfile(context, orgId).catch((error: unknown) =>
        isClerkNotFound(error) ? null : Promise.reject(error),
      );
      return profile ? [{ ...profile, role }] : [];
    }),
  );
  return organizations.flat().sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Clerk's components change an organization from the browser (its name, slug
 * or logo), so the server learns of it only when told: forget this instance's
 * copies of it (shared ones too). Other instances' own copies expire within
 * their few seconds, or at once on Clerk's webhook.
 */
export function forgetOrganization(context: AppLoadContext, userId: string, orgId: string): void {
  context.orgs.memberships.forget(userId);
  context.orgs.invitations.forget(userId);
  forgetMembersOf(context, orgId);
}

/**
 * The person's organizations just after they left or deleted `goneOrgId`
 * through Clerk's components (`?left=`): if the kept list still names it,
 * the person's own memberships are read again from Clerk, at most once per
 * 10 s per person (the rest of the time, the list is shown without it: it
 * only hides one of their own organizations from themselves). Nothing of
 * the organization's own is forgotten: its other members' copies are Clerk's
 * webhooks' to change, so repeating the parameter costs Clerk at most six
 * reads a minute per instance, and nobody else anything.
 */
export async function listMyOrganizationsWithout(
  context: AppLoadContext,
  userId: string,
  goneOrgId: string | null,
): Promise<OrgSummary[]> {
  const list = await listMyOrganizations(context, userId);
  if (!goneOrgId || !list.some((o) => o.id === goneOrgId)) return list;
  if (!context.orgs.mayRereadMemberships(userId)) return list.filter((o) => o.id !== goneOrgId);
  return listMyOrganizations(context, userId, { fresh: true });
}
