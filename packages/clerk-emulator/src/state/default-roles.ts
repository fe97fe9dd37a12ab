import type { PermissionRecord, RoleRecord } from "./records";

/**
 * The roles and system permissions every instance starts with, as Clerk
 * seeds them; domain/roles.ts holds the rules over them.
 */
const SEEDED_AT = Date.UTC(2026, 0, 5, 9, 0, 0);

const system = (key: string, name: string, description: string): PermissionRecord => ({
  id: `perm_${key.slice(4).replace(/:/g, "_")}`,
  key,
  name,
  description,
  createdAt: SEEDED_AT,
  updatedAt: SEEDED_AT,
});

/** Clerk's system permissions, as its dashboard names them (billing's are left out: the emulator has no billing). */
export const SYSTEM_PERMISSIONS: readonly PermissionRecord[] = [
  system("org:sys_profile:manage", "Manage organization", "Permission to manage an organization."),
  system("org:sys_profile:delete", "Delete organization", "Permission to delete an organization."),
  system("org:sys_memberships:read", "Read members", "Permission to read the members of an organization."),
  system("org:sys_memberships:manage", "Manage members", "Permission to manage the members of an organization."),
  system("org:sys_domains:read", "Read domains", "Permission to read the domains of an organization."),
  system("org:sys_domains:manage", "Manage domains", "Permission to manage the domains of an organization."),
];

/** The creator role's id: whoever creates an organization gets it (Clerk's default, `org:admin`). */
export const CREATOR_ROLE_ID = "role_admin";

/** The default role's id: what someone joining without a chosen role gets (Clerk's "default role for members", `org:member`). */
export const DEFAULT_ROLE_ID = "role_member";

/** Clerk's default roles, as every instance starts with them. */
export function defaultRoles(): RoleRecord[] {
  const idOf = (key: string) => SYSTEM_PERMISSIONS.find((p) => p.key === key)!.id;
  return [
    {
      id: CREATOR_ROLE_ID,
      key: "org:admin",
      name: "Admin",
      description: "Role with elevated permissions",
      permissionIds: SYSTEM_PERMISSIONS.map((p) => p.id),
      createdAt: SEEDED_AT,
      updatedAt: SEEDED_AT,
    },
    {
      id: DEFAULT_ROLE_ID,
      key: "org:member",
      name: "Member",
      description: "Role with non-elevated permissions",
      permissionIds: [idOf("org:sys_memberships:read")],
      createdAt: SEEDED_AT,
      updatedAt: SEEDED_AT,
    },
  ];
}
