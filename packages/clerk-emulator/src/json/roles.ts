import type { DeepReadonly, MembershipRequestRecord, PermissionRecord, RoleRecord, Store } from "../state/store";
import { isCreatorEligible, permissionsOfRole, permissionType } from "../domain/roles";
import type { Api } from "./common";
import { publicUserDataJSON } from "./public-user-data";

/** A permission, system (`org:sys_…`) or custom (`type: "user"`, as clerk-js types it). */
export function permissionJSON(p: PermissionRecord) {
  return {
    object: "permission",
    id: p.id,
    name: p.name,
    key: p.key,
    description: p.description,
    type: permissionType(p),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

/** A role with its permissions. The browser's shape has no null description (Clerk's Frontend API types it a string). */
export function roleJSON(store: Store, role: DeepReadonly<RoleRecord>, api: Api) {
  return {
    object: "role",
    id: role.id,
    key: role.key,
    name: role.name,
    description: api === "fapi" ? (role.description ?? "") : role.description,
    is_creator_eligible: isCreatorEligible(store, role),
    permissions: permissionsOfRole(store, role).map(permissionJSON),
    created_at: role.createdAt,
    updated_at: role.updatedAt,
  };
}

/** Someone asking to join an organization, as OrganizationProfile's requests tab shows them. */
export function membershipRequestJSON(store: Store, r: MembershipRequestRecord) {
  const user = store.user(r.userId);
  return {
    object: "organization_membership_request",
    id: r.id,
    organization_id: r.orgId,
    status: r.status,
    public_user_data: user ? publicUserDataJSON(store, user) : null,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
