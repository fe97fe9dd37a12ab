import { hasPermission } from "./roles";
import { ApiError } from "./errors";
import type { MembershipRecord, Metadata, OrgRecord, Role, Store } from "../state/store";
import { mergeMetadata } from "./metadata";

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

/**
 * Adds a user of the instance to an organization directly, without an invitation, with metadata if given
 * (the Backend API's): Clerk's 404 for an unknown user, 400 for a member.
 */
export function addMember(
  store: Store,
  org: OrgRecord,
  userId: string,
  role: Role,
  metadata: Partial<Pick<MembershipRecord, "publicMetadata" | "privateMetadata">> = {},
): MembershipRecord {
  if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
  if (store.membership(org.id, userId))
    throw new ApiError(400, "already_a_member_in_organization", "Already a member", "user_id");
  return store.write(() => Object.assign(store.addMembership(org.id, userId, role), metadata));
}

export function changeRole(store: Store, m: MembershipRecord, role: Role): MembershipRecord {
  if (m.role === role) return m;
  return store.write(() => {
    const before = m.role;
    m.role = role;
    // The new role may lack what the last admin needs: then nothing changes.
    if (!store.membershipsOfOrg(m.orgId).some((o) => hasPermission(store, o, "org:sys_memberships:manage"))) {
      m.role = before;
      throw lastAdminError();
    }
    m.updatedAt = Date.now();
    return m;
  });
}

/** Removes a member, or lets one leave: either way the last admin stays. */
export function removeMember(store: Store, m: MembershipRecord): MembershipRecord {
  if (isLastAdmin(store, m)) throw lastAdminError();
  store.write(() => store.removeMembership(m));
  return m;
}

/** Clerk's deep merge into a membership's metadata, as for a user's or an organization's: a key set to null is removed. */
export function mergeMembershipMetadata(
  store: Store,
  m: MembershipRecord,
  given: Partial<Record<"public" | "private", Metadata>>,
): MembershipRecord {
  return store.write(() => {
    for (const kind of ["public", "private"] as const) {
      const patch = given[kind];
      if (patch) m[`${kind}Metadata`] = mergeMetadata(m[`${kind}Metadata`] ?? {}, patch);
    }
    m.updatedAt = Date.now();
    return m;
  });
}
