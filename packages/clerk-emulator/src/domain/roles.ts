import type { MembershipRecord, PermissionRecord, RoleRecord, State } from "../state/records";
import type { DeepReadonly } from "../state/store";
import { ApiError } from "./errors";
import { CREATOR_ROLE_ID, DEFAULT_ROLE_ID, SYSTEM_PERMISSIONS } from "../state/default-roles";

export { CREATOR_ROLE_ID, DEFAULT_ROLE_ID, SYSTEM_PERMISSIONS };

/**
 * Clerk's organization roles and permissions. System permissions
 * (`org:sys_…`) are built in and cannot be changed; custom ones
 * (`org:<feature>:<action>`) are the instance's. Roles are the instance's too:
 * Clerk starts every instance with `org:admin` (every system permission) and
 * `org:member` (reading members), which can be edited like any other.
 */
export type PermissionType = "system" | "user";

/** What a role needs to be an organization's creator role (Clerk's docs, "Reassign the Creator role"). */
const CREATOR_PERMISSIONS = ["org:sys_memberships:manage", "org:sys_memberships:read", "org:sys_profile:delete"];

/** The key of the role an organization's creator gets: the instance's setting (`creator_role_id`), else `org:admin`. */
export function creatorRoleKey(
  store: Holder & {
    state: { readonly instance?: { readonly organizationSettings: { readonly creatorRole: string } } };
  },
): string {
  const chosen = store.state.instance?.organizationSettings.creatorRole;
  return (chosen ? findRole(store, chosen)?.key : null) ?? findRole(store, CREATOR_ROLE_ID)?.key ?? "org:admin";
}

/** The key of the role a member joining without a chosen role gets (an accepted membership request). */
export function defaultRoleKey(store: Holder): string {
  return findRole(store, DEFAULT_ROLE_ID)?.key ?? "org:member";
}

/** What the roles' rules read (the store's read-only state): they find, never change. */
export type Holder = { state: DeepReadonly<Pick<State, "roles" | "permissions" | "memberships" | "invitations">> };
type Role = DeepReadonly<RoleRecord>;
type Permission = DeepReadonly<PermissionRecord>;

export const permissionType = (p: PermissionRecord): PermissionType =>
  p.key.startsWith("org:sys_") ? "system" : "user";

export function permissionById(store: Holder, id: string): Permission | null {
  return SYSTEM_PERMISSIONS.find((p) => p.id === id) ?? store.state.permissions.find((p) => p.id === id) ?? null;
}

/** A role by its id or its key. */
export function findRole(store: Holder, idOrKey: string): Role | null {
  return store.state.roles.find((r) => r.id === idOrKey || r.key === idOrKey) ?? null;
}

/** A role's permissions, system ones first as Clerk lists them. */
export function permissionsOfRole(store: Holder, role: Role): Permission[] {
  const found = role.permissionIds.map((id) => permissionById(store, id)).filter((p) => p !== null);
  return [...found.filter((p) => permissionType(p) === "system"), ...found.filter((p) => permissionType(p) === "user")];
}

/** The permission keys a role key grants (none for a role that no longer exists). */
export function permissionKeysOf(store: Holder, roleKey: string): string[] {
  const role = findRole(store, roleKey);
  return role ? permissionsOfRole(store, role).map((p) => p.key) : [];
}

export function roleName(store: Holder, roleKey: string): string {
  return findRole(store, roleKey)?.name ?? roleKey;
}

export function isCreatorEligible(store: Holder, role: Role): boolean {
  const keys = permissionsOfRole(store, role).map((p) => p.key);
  return CREATOR_PERMISSIONS.every((k) => keys.includes(k));
}

export function hasPermission(store: Holder, m: MembershipRecord, key: string): boolean {
  return permissionKeysOf(store, m.role).includes(key);
}

/** Clerk's 403 when the signed-in member's role lacks a permission the Frontend API asks for. */
export function requirePermission(store: Holder, m: MembershipRecord, key: string): void {
  if (!hasPermission(store, m, key)) {
    throw new ApiError(403, "missing_organization_permission", "Current user is missing an organization permission.");
  }
}

/** A role key the instance has, or Clerk's 422 naming the parameter. */
export function parseRoleKey(store: Holder, value: unknown, param = "role"): string {
  if (typeof value !== "string" || !findRole(store, value) || !value.startsWith("org:")) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      `${param} must be one of the instance's organization roles.`,
      param,
      `${typeof value === "string" ? value : "The value"} is not an organization role of this instance (${store.state.roles.map((r) => r.key).join(", ")}).`,
    );
  }
  return value;
}
