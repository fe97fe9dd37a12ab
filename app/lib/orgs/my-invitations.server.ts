import type { OrganizationInvitation } from "@clerk/backend";
import type { AppLoadContext } from "@remix-run/node";
import { cachedClerkRead, clerkWrite } from "../clerk/backend-calls.server";
import { clerkErrorCode, isClerkNotFound } from "../clerk/field-errors.server";
import { organizationProfile } from "./memberships.server";
import { type MyInvitation, type OrgSummary, type KeptInvitation } from "./organizations";

const toKept = (invitation: OrganizationInvitation): KeptInvitation[] =>
  invitation.publicOrganizationData
    ? [{ id: invitation.id, orgId: invitation.publicOrganizationData.id, role: invitation.role }]
    : [];

/**
 * The invitations waiting for the signed-in person (to any of their verified
 * addresses), through the per-user cache; `fresh` asks Clerk again. Each
 * organization's name and logo come from its kept profile, so a rename shows
 * without forgetting every invitee's list; one deleted meanwhile is left out.
 */
export async function listMyInvitations(
  context: AppLoadContext,
  userId: string,
  { fresh = false } = {},
): Promise<MyInvitation[]> {
  const kept = await cachedClerkRead(
    context,
    {
      cache: context.orgs.invitations,
      name: "users.getOrganizationInvitationList",
      key: userId,
      fresh,
      // Displays: accepting one asks Clerk anew.
      deferrable: true,
    },
    (clerk) => clerk.users.getOrganizationInvitationList({ userId, status: "pending", limit: 100 }),
    ({ data }) => data.flatMap(toKept),
  );
  const invitations = await Promise.all(
    kept.map(async (invitation): Promise<MyInvitation[]> => {
      const profile = await organizationProfile(context, invitation.orgId).catch((error: unknown) =>
        isClerkNotFound(error) ? null : Promise.reject(error),
      );
      return profile ? [{ ...invitation, name: profile.name, slug: profile.slug, imageUrl: profile.imageUrl }] : [];
    }),
  );
  return invitations.flat().sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What is worth offering: an invitation to an organization the person is
 * already in is not. Invitations that could not be read stay `null`.
 */
export const openInvitations = (invitations: MyInvitation[] | null, organizations: OrgSummary[] | null) =>
  invitations && invitations.filter((i) => !organizations?.some((o) => o.id === i.orgId));

/**
 * Accepts one of the person's pending invitations: they become a member with
 * the invitation's role. Clerk's Backend API has no "accept" (only the
 * person's browser can, through the Frontend API, which is what the page does
 * when clerk-js is there); this is the same outcome for a browser without
 * JavaScript: the membership is made here and the used invitation revoked, so
 * that nobody sees it pending. `null` when the invitation is not (or no
 * longer) waiting for this person.
 */
export async function acceptMyInvitation(
  context: AppLoadContext,
  userId: string,
  invitationId: string,
): Promise<MyInvitation | null> {
  const invitation = (await listMyInvitations(context, userId, { fresh: true })).find((i) => i.id === invitationId);
  if (!invitation) return null;
  const organizationId = invitation.orgId;
  await clerkWrite(context, "organizations.createOrganizationMembership", (clerk) =>
    clerk.organizations.createOrganizationMembership({ organizationId, userId, role: invitation.role }),
  ).catch((error: unknown) => {
    if (clerkErrorCode(error) !== "already_a_member_in_organization") throw error;
  });
  await clerkWrite(context, "organizations.revokeOrganizationInvitation", (clerk) =>
    clerk.organizations.revokeOrganizationInvitation({ organizationId, invitationId }),
  ).catch(() => {
    // The membership is what counts: an invitation left pending (used in
    // another tab meanwhile, or Clerk away just now) is not offered to a
    // member (openInvitations), and its admin can still revoke it.
  });
  context.orgs.memberships.forget(userId);
  context.orgs.invitations.forget(userId);
  return invitation;
}
