import { hasPermission } from "./roles";
import { ApiError } from "./errors";
import type { MembershipRecord, OrgRecord, Role, Store } from "../state/store";

/** Clerk's answer when a change would leave an organization without an admin. */
export const lastAdminError = () =>
  new ApiError(
    400,
    "organization_minimum_permissions_needed",
    "There has to be at least one organization member with the minimum required permissions",
  );

/** Whether this member is the organization's last one who may manage members (`org:sys_memberships:manage`). */
function isLastAdmin(store: Store, m: MembershipRecord): boolean {
  const manages = (o: MembershipRecord) => hasPermission(store, o, "org:sys_memberships:manage");
  return manages(m) && !store.membershipsOfOrg(m.orgId).some((o) => o !== m && manages(o));
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

export function changeRole(store: Store, m: MembershipRecord, role: Role): MembershipRecord {
  if (m.role === role) return m;
  const before = m.role;
  m.role = role;
  // The new role may lack what the last admin needs: then nothing changes.
  if (!store.membershipsOfOrg(m.orgId).some((o) => hasPermission(store, o, "org:sys_memberships:manage"))) {
    m.role = before;
    throw lastAdminError();
  }
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
