import { ApiError } from "./routing";
import type { MembershipRecord, OrgRecord, Role, Store } from "./store";

export const ROLES: Role[] = ["org:admin", "org:member"];

export function parseRole(value: unknown): Role {
  if (!ROLES.includes(value as Role)) {
    throw new ApiError(422, "form_param_value_invalid", "role must be org:admin or org:member.", "role");
  }
  return value as Role;
}

/** Clerk's answer when a change would leave an organization without an admin. */
export const lastAdminError = () =>
  new ApiError(
    400,
    "organization_minimum_permissions_needed",
    "There has to be at least one organization member with the minimum required permissions",
  );

function isLastAdmin(store: Store, m: MembershipRecord): boolean {
  return m.role === "org:admin" && !store.membershipsOfOrg(m.orgId).some((o) => o !== m && o.role === "org:admin");
}

/** The organizations whose only admin this user is. */
export function soleAdminOf(store: Store, userId: string): string[] {
  return store
    .membershipsOfUser(userId)
    .filter((m) => isLastAdmin(store, m))
    .map((m) => m.orgId);
}

export function membershipOf(store: Store, org: OrgRecord, userId: string): MembershipRecord {
  const m = store.membership(org.id, userId);
  if (!m) throw new ApiError(404, "resource_not_found", "Membership not found", "user_id");
  return m;
}

/** The caller may manage members only as an admin of the organization (Clerk's `org:sys_memberships:manage`). */
export function requireAdmin(m: MembershipRecord): void {
  if (m.role !== "org:admin") {
    throw new ApiError(403, "missing_organization_permission", "Current user is missing an organization permission.");
  }
}

export function changeRole(store: Store, m: MembershipRecord, role: Role): MembershipRecord {
  if (m.role === role) return m;
  if (isLastAdmin(store, m)) throw lastAdminError();
  m.role = role;
  m.updatedAt = Date.now();
  store.changed();
  return m;
}

/** Removes a member, or lets one leave: either way the last admin stays. */
export function removeMember(store: Store, m: MembershipRecord): MembershipRecord {
  if (isLastAdmin(store, m)) throw lastAdminError();
  store.removeMembership(m);
  return m;
}
