import { newId, nowMs } from "../state/ids";
import type { PermissionRecord, RoleRecord } from "../state/records";
import type { DeepReadonly, Store } from "../state/store";
import { CREATOR_ROLE_ID, DEFAULT_ROLE_ID, findRole, permissionById, permissionType, type Holder } from "./roles";
import { ApiError } from "./errors";

/**
 * Changes to the instance's organization roles and custom permissions, with
 * Clerk's rules (the Backend API's `/v1/organization_roles` and
 * `/v1/organization_permissions`), each one write (`store.write`).
 */
const ROLE_KEY = /^org:[a-z0-9_]+$/;
const PERMISSION_KEY = /^org:[a-z0-9_]+:[a-z0-9_]+$/;

function requiredText(value: unknown, param: string): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (!text) throw new ApiError(422, "form_param_missing", `${param} is missing.`, param);
  if (text.length > 256) throw new ApiError(422, "form_param_exceeds_allowed_size", `${param} is too long.`, param);
  return text;
}

type Permission = DeepReadonly<PermissionRecord>;

function roleKeyOf(store: Holder, value: unknown, except?: RoleRecord): string {
  const key = requiredText(value, "key");
  if (!ROLE_KEY.test(key)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "key must start with org: and contain only lowercase letters, digits and underscores.",
      "key",
    );
  }
  const holder = findRole(store, key);
  if (holder && holder !== except) {
    throw new ApiError(400, "duplicate_record", `A role with key ${key} already exists.`, "key");
  }
  return key;
}

function permissionKeyOf(store: Holder, value: unknown, except?: PermissionRecord): string {
  const key = requiredText(value, "key");
  if (!PERMISSION_KEY.test(key) || key.startsWith("org:sys_")) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      'key must have the format "org:feature:action" (lowercase letters, digits, underscores), and not begin with org:sys_.',
      "key",
    );
  }
  const holder = store.state.permissions.find((p) => p.key === key);
  if (holder && holder !== except) {
    throw new ApiError(400, "duplicate_record", `A permission with key ${key} already exists.`, "key");
  }
  return key;
}

function permissionIdsOf(store: Holder, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "permissions must be a list of permission ids.",
      "permissions",
    );
  }
  for (const id of value as string[]) {
    if (!permissionById(store, id)) {
      throw new ApiError(404, "resource_not_found", `No permission found with id ${id}.`, "permissions");
    }
  }
  return [...new Set(value as string[])];
}

const optionalDescription = (value: unknown): string | null => (typeof value === "string" ? value : null);

export function createRole(store: Store, body: Record<string, unknown>): RoleRecord {
  const t = nowMs();
  const role: RoleRecord = {
    id: newId("role"),
    name: requiredText(body.name, "name"),
    key: roleKeyOf(store, body.key),
    description: optionalDescription(body.description),
    permissionIds:
      body.permissions === undefined || body.permissions === null ? [] : permissionIdsOf(store, body.permissions),
    createdAt: t,
    updatedAt: t,
  };
  return store.write((state) => {
    state.roles.push(role);
    return role;
  });
}

/** A role's new name, key, description or permissions (what is not sent stays); memberships follow a new key. */
export function updateRole(store: Store, role: RoleRecord, body: Record<string, unknown>): RoleRecord {
  const name = body.name === undefined || body.name === null ? role.name : requiredText(body.name, "name");
  const key = body.key === undefined || body.key === null ? role.key : roleKeyOf(store, body.key, role);
  const permissionIds =
    body.permissions === undefined || body.permissions === null
      ? role.permissionIds
      : permissionIdsOf(store, body.permissions);
  return store.write((state) => {
    if (key !== role.key) {
      for (const m of state.memberships) if (m.role === role.key) m.role = key;
      for (const i of state.invitations) if (i.role === role.key) i.role = key;
    }
    Object.assign(role, { name, key, permissionIds, updatedAt: nowMs() });
    if (body.description !== undefined) role.description = optionalDescription(body.description);
    return role;
  });
}

/**
 * Clerk refuses to delete a role that is the creator role or the default role
 * for new members, that someone holds, or that an invitation names (Clerk's
 * description of `DELETE /v1/organization_roles/{id}`).
 */
export function deleteRole(store: Store, role: RoleRecord): void {
  const inUse =
    role.id === CREATOR_ROLE_ID ||
    role.id === DEFAULT_ROLE_ID ||
    store.state.memberships.some((m) => m.role === role.key) ||
    store.state.invitations.some((i) => i.role === role.key);
  if (inUse) {
    throw new ApiError(
      422,
      "organization_role_in_use",
      "This role cannot be deleted.",
      undefined,
      `The role ${role.key} is the creator role or the default role, or members or invitations have it; change those first.`,
    );
  }
  store.write((state) => {
    state.roles = state.roles.filter((r) => r !== role);
  });
}

export function assignPermission(store: Store, role: RoleRecord, permission: Permission): RoleRecord {
  if (role.permissionIds.includes(permission.id)) {
    throw new ApiError(409, "duplicate_record", `The role already has the permission ${permission.key}.`);
  }
  return store.write(() => {
    role.permissionIds.push(permission.id);
    role.updatedAt = nowMs();
    return role;
  });
}

export function removePermission(store: Store, role: RoleRecord, permission: Permission): RoleRecord {
  if (!role.permissionIds.includes(permission.id)) {
    throw new ApiError(404, "resource_not_found", `The role does not have the permission ${permission.key}.`);
  }
  return store.write(() => {
    role.permissionIds = role.permissionIds.filter((id) => id !== permission.id);
    role.updatedAt = nowMs();
    return role;
  });
}

export function createPermission(store: Store, body: Record<string, unknown>): PermissionRecord {
  const t = nowMs();
  const permission: PermissionRecord = {
    id: newId("perm"),
    name: requiredText(body.name, "name"),
    key: permissionKeyOf(store, body.key),
    description: typeof body.description === "string" ? body.description : "",
    createdAt: t,
    updatedAt: t,
  };
  return store.write((state) => {
    state.permissions.push(permission);
    return permission;
  });
}

/** A custom permission only: Clerk's system ones cannot be changed or deleted. */
export function customPermission(store: Store, id: string): PermissionRecord {
  const known = permissionById(store, id);
  if (!known) throw new ApiError(404, "resource_not_found", `No permission found with id ${id}.`);
  const found = permissionType(known) === "system" ? null : store.find("permissions", (p) => p.id === id);
  if (!found) throw new ApiError(403, "authorization_invalid", "System permissions cannot be changed or deleted.");
  return found;
}

/** A permission's new name, key or description (what is not sent stays), all checked before any changes. */
export function updatePermission(store: Store, p: PermissionRecord, body: Record<string, unknown>): PermissionRecord {
  const name = body.name === undefined ? p.name : requiredText(body.name, "name");
  const key = body.key === undefined ? p.key : permissionKeyOf(store, body.key, p);
  const description =
    body.description === undefined ? p.description : typeof body.description === "string" ? body.description : "";
  return store.write(() => Object.assign(p, { name, key, description, updatedAt: nowMs() }));
}

/** A deleted permission leaves every role that had it. */
export function deletePermission(store: Store, p: PermissionRecord): void {
  store.write((state) => {
    state.permissions = state.permissions.filter((other) => other !== p);
    for (const role of state.roles) {
      if (!role.permissionIds.includes(p.id)) continue;
      role.permissionIds = role.permissionIds.filter((id) => id !== p.id);
      role.updatedAt = nowMs();
    }
  });
}
