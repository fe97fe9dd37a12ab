import type { AppLoadContext } from "@remix-run/node";
import { clerkWrite } from "../clerk/backend-calls.server";
import { forgetMembersOf } from "./members.server";
import type { OrgRole } from "./organizations";

export async function inviteMember(
  context: AppLoadContext,
  input: { orgId: string; inviterUserId: string; emailAddress: string; role: OrgRole },
) {
  const invitation = await clerkWrite(context, "organizations.createOrganizationInvitation", (clerk) =>
    clerk.organizations.createOrganizationInvitation({
      organizationId: input.orgId,
      inviterUserId: input.inviterUserId,
      emailAddress: input.emailAddress,
      role: input.role,
    }),
  );
  forgetMembersOf(context, input.orgId);
  return invitation;
}

export async function revokeInvitation(
  context: AppLoadContext,
  input: { orgId: string; invitationId: string; requestingUserId: string },
) {
  const invitation = await clerkWrite(context, "organizations.revokeOrganizationInvitation", (clerk) =>
    clerk.organizations.revokeOrganizationInvitation({
      organizationId: input.orgId,
      invitationId: input.invitationId,
      requestingUserId: input.requestingUserId,
    }),
  );
  forgetMembersOf(context, input.orgId);
  return invitation;
}

/** Creates the organization with the user as its admin; their cached list is forgotten. */
export async function createOrganization(
  context: AppLoadContext,
  input: { userId: string; name: string; slug?: string },
) {
  const org = await clerkWrite(context, "organizations.createOrganization", (clerk) =>
    clerk.organizations.createOrganization({ name: input.name, slug: input.slug, createdBy: input.userId }),
  );
  context.orgs.memberships.forget(input.userId);
  return { id: org.id, slug: org.slug || null };
}
