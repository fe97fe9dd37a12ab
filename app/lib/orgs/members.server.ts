import type { OrganizationMembership } from "@clerk/backend";
import type { AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "../clerk/auth.server";
import { clerkRead } from "../clerk/backend-calls.server";
import { checkRateLimit, type RateLimited } from "../http/rate-limit.server";
import type { LatestMembers } from "./org-caches.server";
import type { Member, OrgRole } from "./organizations";

export const MEMBERS_PAGE_SIZE = 10;
export const LATEST_MEMBERS = 5;

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

export type MemberPage = { members: Member[]; total: number };

/**
 * How long Redis keeps a search's answer (any query) or a page past the
 * directory's last: moments, for a reload or the next page view on another
 * instance, and never as a stand-in when Clerk fails. A query or a page
 * number is whatever a URL says, so each could otherwise leave an answer in
 * Redis for 10 minutes; the directory's own pages are few and every member's.
 */
export const SEARCH_KEPT_MS = 30_000;

/** memberPages' `keepMs`: SEARCH_KEPT_MS for a search or a page past the last, else the cache's own (undefined). */
export function memberPageKeptMs(key: string, { total }: MemberPage): number | undefined {
  const [, page, ...query] = key.split("|");
  const lastPage = Math.max(1, Math.ceil(total / MEMBERS_PAGE_SIZE));
  return query.join("|") === "" && Number(page) <= lastPage ? undefined : SEARCH_KEPT_MS;
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
  return context.orgs.memberPages.get(`${orgId}|${page}|${query}`, () =>
    clerkRead(
      context,
      "organizations.getOrganizationMembershipList",
      `${orgId}|${page}|${query}`,
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
      `${orgId}|latest`,
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

export type PendingInvitation = {
  id: string;
  emailAddress: string;
  role: OrgRole;
  createdAt: number;
  url: string | null;
};

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
  return context.orgs.pendingInvitations.get(`${orgId}|${withLinks ? "links" : ""}`, () =>
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
  context.orgs.memberPages.clear(`${orgId}|`);
  context.orgs.pendingInvitations.clear(`${orgId}|`);
  context.orgs.latestMembers.forget(orgId);
  context.orgs.profiles.forget(orgId);
}
