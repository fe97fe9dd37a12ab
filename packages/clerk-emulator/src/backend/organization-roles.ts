import { deletedJSON, permissionJSON, roleJSON } from "../json";
import {
  assignPermission,
  createPermission,
  createRole,
  customPermission,
  deletePermission,
  deleteRole,
  removePermission,
  updatePermission,
  updateRole,
} from "../domain/role-changes";
import { permissionById, SYSTEM_PERMISSIONS } from "../domain/roles";
import { ApiError } from "../domain/errors";
import { paginate } from "../http/routing";
import type { PermissionRecord, RoleRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { bodyOf, unknownParameter, type BodyFields } from "./declarations";
import { filterList, listParams, orderBy, type ListSpec, idNameOrKey } from "./lists";

const ROLE_FIELDS: BodyFields = {
  name: "kept",
  key: "kept",
  description: "kept",
  permissions: "kept",
};

const PERMISSION_FIELDS: BodyFields = { name: "kept", key: "kept", description: "kept" };

/** `GET /v1/organization_roles`. */
const ROLE_LIST: ListSpec<RoleRecord> = {
  filters: { query: idNameOrKey() },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/organization_permissions`. */
const PERMISSION_LIST: ListSpec<PermissionRecord> = {
  filters: { query: idNameOrKey() },
  options: ["order_by", "limit", "offset"],
};

/** Clerk's orders for roles and permissions (`order_by`, `-created_at` unless asked). */
const orders = {
  created_at: (x: { createdAt: number }) => x.createdAt,
  name: (x: { name: string }) => x.name.toLowerCase(),
  key: (x: { key: string }) => x.key,
};

/** The instance's organization roles and permissions (Clerk's `/v1/organization_roles`, `/v1/organization_permissions`). */
export function registerOrganizationRoleRoutes(route: Route, { store }: BackendContext): void {
  const roleOf = (id: unknown): RoleRecord => {
    const role = store.find("roles", (r) => r.id === id);
    if (!role) throw new ApiError(404, "resource_not_found", `No organization role found with id ${String(id)}.`);
    return role;
  };
  const permissionOf = (id: unknown): PermissionRecord => {
    const permission = permissionById(store, String(id));
    if (!permission) throw new ApiError(404, "resource_not_found", `No permission found with id ${String(id)}.`);
    return permission;
  };

  route("GET", "/v1/organization_roles", { query: listParams(ROLE_LIST) }, (req) => {
    const found = filterList(ROLE_LIST, req, store, store.all("roles"));
    const list = orderBy(req, found, orders, "-created_at").map((r) => roleJSON(store, r, "bapi"));
    return paginate(list, req.query);
  });
  route(
    "POST",
    "/v1/organization_roles",
    {
      body: {
        ...ROLE_FIELDS,
        // The emulator has no role sets: every role is offered everywhere, so `false` is refused by the endpoint.
        include_in_initial_role_set: "kept",
      },
    },
    (req) => {
      const body = bodyOf(req.body);
      if (body.include_in_initial_role_set === false || body.include_in_initial_role_set === "false") {
        throw unknownParameter(
          "include_in_initial_role_set",
          "The emulator has no role sets: every role is offered in every organization.",
        );
      }
      return roleJSON(store, createRole(store, body), "bapi");
    },
  );
  route("GET", "/v1/organization_roles/:roleId", { query: [] }, (req) =>
    roleJSON(store, roleOf(req.params.roleId), "bapi"),
  );
  route("PATCH", "/v1/organization_roles/:roleId", { body: ROLE_FIELDS }, (req) =>
    roleJSON(store, updateRole(store, roleOf(req.params.roleId), bodyOf(req.body)), "bapi"),
  );
  route("DELETE", "/v1/organization_roles/:roleId", { body: {} }, (req) => {
    const role = roleOf(req.params.roleId);
    deleteRole(store, role);
    return deletedJSON("role", role.id);
  });
  route("POST", "/v1/organization_roles/:roleId/permissions/:permissionId", { body: {} }, (req) => {
    const role = assignPermission(store, roleOf(req.params.roleId), permissionOf(req.params.permissionId));
    return roleJSON(store, role, "bapi");
  });
  route("DELETE", "/v1/organization_roles/:roleId/permissions/:permissionId", { body: {} }, (req) => {
    const role = removePermission(store, roleOf(req.params.roleId), permissionOf(req.params.permissionId));
    return roleJSON(store, role, "bapi");
  });

  // Clerk's system permissions are listed with the instance's own.
  route("GET", "/v1/organization_permissions", { query: listParams(PERMISSION_LIST) }, (req) => {
    const found = filterList(PERMISSION_LIST, req, store, [...SYSTEM_PERMISSIONS, ...store.state.permissions]);
    const list = orderBy(req, found, orders, "-created_at").map(permissionJSON);
    return paginate(list, req.query);
  });
  route("POST", "/v1/organization_permissions", { body: PERMISSION_FIELDS }, (req) =>
    permissionJSON(createPermission(store, bodyOf(req.body))),
  );
  route("GET", "/v1/organization_permissions/:permissionId", { query: [] }, (req) =>
    permissionJSON(permissionOf(req.params.permissionId)),
  );
  route("PATCH", "/v1/organization_permissions/:permissionId", { body: PERMISSION_FIELDS }, (req) => {
    const permission = customPermission(store, String(req.params.permissionId));
    return permissionJSON(updatePermission(store, permission, bodyOf(req.body)));
  });
  route("DELETE", "/v1/organization_permissions/:permissionId", { body: {} }, (req) => {
    const permission = customPermission(store, String(req.params.permissionId));
    deletePermission(store, permission);
    return deletedJSON("permission", permission.id);
  });
}
