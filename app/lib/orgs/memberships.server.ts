import type { OrganizationMembership } from "@clerk/backend";
import type { AppLoadContext } from "@remix-run/node";
import { clerkRead } from "../clerk/backend-calls.server";
import type { OrgRole, OrgSummary } from "./organizations";

function toSummary(m: OrganizationMembership): OrgSummary {
  const org = m.organization;
  return {
    id: org.id,
    name: org.name,
    slug: org.slug || null,
    imageUrl: org.hasImage ? org.imageUrl : null,
    membersCount: org.membersCount ?? null,
    role: m.role as OrgRole,
  };
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
  if (fresh) context.memberships.forget(userId);
  return context.memberships.get(userId, () =>
    clerkRead(context, "users.getOrganizationMembershipList", fresh ? `${userId}|fresh` : userId, (clerk) =>
      clerk.users.getOrganizationMembershipList({ userId, limit: 100 }),
    ).then(({ data }) => data.map(toSummary).sort((a, b) => a.name.localeCompare(b.name))),
  );
}
