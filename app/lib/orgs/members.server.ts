import { orgKey, orgPrefix } from "../cache/keys";
import type { OrganizationMembership } from "@clerk/backend";
import type { AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "../clerk/auth.server";
import { clerkRead } from "../clerk/backend-calls.server";
import { checkRateLimit, type RateLimited } from "../http/rate-limit.server";
import type { LatestMembers } from "../cache/org-caches.server";
import {
  LATEST_MEMBERS,
  MEMBERS_PAGE_SIZE,
  type Member,
  type OrgRole,
  type MemberPage,
  type PendingInvitation,
} from "./organizations";

function toMember(m: OrganizationMembership): Member {
  const user = m.publicUserData;
  const name = [user?.firstName, user?.lastName].filter(Boolean).join(" ");
  return {
    userId: user?.userId ?? "",
    name: name || user?.identifier || "Unknown member",
    identifier: user?.identifier ?? "",
    imageUrl: user?.hasImage ? user.imageUrl : null,
    role: m.role as OrgRole,
    joinedAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/**
 * A search of the directory (a query, or a page past the first) is a Clerk
 * call each: counted per person, before the call. null within the limit (and
 * for the directory's first page, never counted); past it, how long to wait.
 */
export async function memberSearchLimit(
  args: LoaderFunctionArgs,
  { query, page }: { query: string; page: number },
): Promise<RateLimited | null> {
  if (!query && page === 1) return null;
  const { userId } = await requireSignedIn(args);
  return checkRateLimit(args.context, "member-search", userId);
}

/** One page of the members directory, optionally filtered by name or email. */
export function listMembers(
  context: AppLoadContext,
  orgId: string,
  { query, page }: { query: string; page: number },
): Promise<MemberPage> {
  return context.orgs.memberPages.get(orgKey(orgId, page, query), () =>
    clerkRead(
      context,
      "organizations.getOrganizationMembershipList",
      orgKey(orgId, page, query),
      (clerk) =>
        clerk.organizations.getOrganizationMembershipList({
          organizationId: orgId,
          query: query || undefined,
          limit: MEMBERS_PAGE_SIZE,
          offset: (page - 1) * MEMBERS_PAGE_SIZE,
        }),
      { deferrable: true },
    ).then(({ data, totalCount }) => ({ members: data.map(toMember), total: totalCount })),
  );
}

/** The newest members and the member count, for the organization's home (kept a few seconds per organization). */
export function latestMembers(context: AppLoadContext, orgId: string): Promise<LatestMembers> {
  return context.orgs.latestMembers.get(orgId, () =>
    clerkRead(
      context,
      "organizations.getOrganizationMembershipList",
      orgKey(orgId, "latest"),
      (clerk) =>
        clerk.organizations.getOrganizationMembershipList({
          organizationId: orgId,
          limit: LATEST_MEMBERS,
          orderBy: "-created_at",
        }),
      { deferrable: true },
    ).then(({ data, totalCount }) => ({ members: data.map(toMember), total: totalCount })),
  );
}

/**
 * The organization's pending invitations, newest last. `withLinks` keeps each
 * one's link (it holds the invitation's secret ticket): only for admins in
 * local mode, where no email carries it; kept under a key of its own.
 */
export function pendingInvitations(
  context: AppLoadContext,
  orgId: string,
  { withLinks = false } = {},
): Promise<PendingInvitation[]> {
  return context.orgs.pendingInvitations.get(orgKey(orgId, withLinks ? "links" : ""), () =>
    clerkRead(
      context,
      "organizations.getOrganizationInvitationList",
      orgId,
      (clerk) =>
        clerk.organizations.getOrganizationInvitationList({ organizationId: orgId, status: ["pending"], limit: 20 }),
      { deferrable: true },
    ).then(({ data }) =>
      data.map((i) => ({
        id: i.id,
        emailAddress: i.emailAddress,
        role: i.role as OrgRole,
        createdAt: i.createdAt,
        url: withLinks ? (i.url ?? null) : null,
      })),
    ),
  );
}

/** After this instance's own change to an organization's members or invitations: its pages show it at once. */
export function forgetMembersOf(context: AppLoadContext, orgId: string): void {
  context.orgs.memberPages.clear(orgPrefix(orgId));
  context.orgs.pendingInvitations.clear(orgPrefix(orgId));
  context.orgs.latestMembers.forget(orgId);
  context.orgs.profiles.forget(orgId);
}
