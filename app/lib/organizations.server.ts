import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import type { OrganizationMembership } from "@clerk/backend";
import { requireUserId } from "./auth.server";
import { clerkRead, clerkWrite } from "./clerk.server";
import { logEvent } from "./log.server";
import { isUnavailable } from "./upstream-request.server";
import type { Member, OrgRole, OrgSummary } from "./organizations";

export const MEMBERS_PAGE_SIZE = 10;
export const LATEST_MEMBERS = 5;

// A user's memberships are read by the root loader (for the switcher) and by
// the organization's layout; a document load followed by the browser's first
// data requests is a burst of reads of the same list. Keep it for this long,
// keyed by user id only, and forget it when the user creates an organization.
const MEMBERSHIP_TTL_MS = 2_000;
const membershipCache = new Map<string, { expires: number; promise: Promise<OrgSummary[]> }>();

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

function toSummary(m: OrganizationMembership): OrgSummary {
  const org = m.organization;
  return {
    id: org.id,
    name: org.name,
    slug: org.slug ?? org.id,
    imageUrl: org.hasImage ? org.imageUrl : null,
    membersCount: org.membersCount ?? null,
    role: m.role as OrgRole,
  };
}

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
  };
}

/** The signed-in user's organizations, by name. */
export function listMyOrganizations(request: Request, userId: string): Promise<OrgSummary[]> {
  const now = Date.now();
  const cached = membershipCache.get(userId);
  if (cached && cached.expires > now) return cached.promise;
  if (membershipCache.size > 1_000) {
    for (const [key, entry] of membershipCache) if (entry.expires <= now) membershipCache.delete(key);
  }
  const promise = clerkRead(request, "users.getOrganizationMembershipList", userId, (clerk) =>
    clerk.users.getOrganizationMembershipList({ userId, limit: 100 }),
  ).then(({ data }) => data.map(toSummary).sort((a, b) => a.name.localeCompare(b.name)));
  const entry = { expires: now + MEMBERSHIP_TTL_MS, promise };
  membershipCache.set(userId, entry);
  promise.catch(() => {
    if (membershipCache.get(userId) === entry) membershipCache.delete(userId);
  });
  return promise;
}

/**
 * The root loader's list for the switcher. Nothing here may take every page
 * (and its theme) down: on failure the switcher falls back to its /orgs link.
 * Outages are already logged by the upstream path; anything else is logged here.
 */
export async function switcherOrganizations(request: Request, userId: string): Promise<OrgSummary[] | null> {
  try {
    return await listMyOrganizations(request, userId);
  } catch (error) {
    if (!isUnavailable(error)) {
      logEvent("unexpected_error", {
        request_id: request.headers.get("x-request-id"),
        route: "root",
        message: error instanceof Error ? error.message : String(error),
      });
    }
    return null;
  }
}

export function forgetMyOrganizations(userId: string): void {
  membershipCache.delete(userId);
}

/** The same 404 for an unknown organization and for one you are not in, so nothing leaks. */
export function organizationNotFound(): never {
  throw json({ message: "Not found" }, { status: 404 });
}

/**
 * The organization named by the URL's slug, if the signed-in user belongs to
 * it: signed out → redirect to sign-in; not a member or no such slug → 404.
 */
export async function requireOrgMembership(args: LoaderFunctionArgs) {
  const userId = await requireUserId(args);
  const slug = args.params.slug ?? "";
  if (!SLUG.test(slug)) organizationNotFound();
  const organizations = await listMyOrganizations(args.request, userId);
  const org = organizations.find((o) => o.slug === slug);
  if (!org) organizationNotFound();
  return { userId, org, organizations };
}

export async function listMembers(request: Request, orgId: string, options: { query: string; page: number }) {
  const { query, page } = options;
  const { data, totalCount } = await clerkRead(
    request,
    "organizations.getOrganizationMembershipList",
    `${orgId}|${page}|${query}`,
    (clerk) =>
      clerk.organizations.getOrganizationMembershipList({
        organizationId: orgId,
        query: query || undefined,
        limit: MEMBERS_PAGE_SIZE,
        offset: (page - 1) * MEMBERS_PAGE_SIZE,
      }),
  );
  return { members: data.map(toMember), total: totalCount };
}

export async function latestMembers(request: Request, orgId: string) {
  const { data, totalCount } = await clerkRead(request, "organizations.getOrganizationMembershipList", `${orgId}|latest`, (clerk) =>
    clerk.organizations.getOrganizationMembershipList({ organizationId: orgId, limit: LATEST_MEMBERS, orderBy: "-created_at" }),
  );
  return { members: data.map(toMember), total: totalCount };
}

export async function pendingInvitations(request: Request, orgId: string) {
  const { data } = await clerkRead(request, "organizations.getOrganizationInvitationList", orgId, (clerk) =>
    clerk.organizations.getOrganizationInvitationList({ organizationId: orgId, status: ["pending"], limit: 20 }),
  );
  return data.map((i) => ({ id: i.id, emailAddress: i.emailAddress, role: i.role as OrgRole, createdAt: i.createdAt }));
}

export function inviteMember(
  request: Request,
  input: { orgId: string; inviterUserId: string; emailAddress: string; role: OrgRole },
) {
  return clerkWrite(request, "organizations.createOrganizationInvitation", (clerk) =>
    clerk.organizations.createOrganizationInvitation({
      organizationId: input.orgId,
      inviterUserId: input.inviterUserId,
      emailAddress: input.emailAddress,
      role: input.role,
    }),
  );
}

export async function createOrganization(request: Request, input: { userId: string; name: string; slug?: string }) {
  const org = await clerkWrite(request, "organizations.createOrganization", (clerk) =>
    clerk.organizations.createOrganization({ name: input.name, slug: input.slug, createdBy: input.userId }),
  );
  forgetMyOrganizations(input.userId);
  return { id: org.id, slug: org.slug ?? org.id };
}
