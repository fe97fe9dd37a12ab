import type { Store } from "../store";

/** Which of Clerk's APIs an object is for: the browser's (Frontend) never carries private metadata. */
export type Api = "fapi" | "bapi";

export const ROLE_NAMES: Record<string, string> = { "org:admin": "Admin", "org:member": "Member" };

const ADMIN_PERMISSIONS = [
  "org:sys_profile:manage",
  "org:sys_profile:delete",
  "org:sys_memberships:read",
  "org:sys_memberships:manage",
  "org:sys_domains:read",
  "org:sys_domains:manage",
];
const MEMBER_PERMISSIONS = ["org:sys_memberships:read"];

export function permissionsFor(role: string): string[] {
  return role === "org:admin" ? ADMIN_PERMISSIONS : MEMBER_PERMISSIONS;
}

/** Where an uploaded image is served (the emulator's own `/images/:id`); empty when there is none, as Clerk's default avatar is ours to draw. */
export function imageUrl(store: Store, imageId: string | null): string {
  return imageId ? `${store.settings.publicUrl}/images/${imageId}` : "";
}

/** The second factors' verifications, as Clerk's spec names them (`Stubs.Verification.TOTP`, `.BackupCode`). */
const SECOND_FACTOR_OBJECTS: Record<string, string> = {
  totp: "verification_totp",
  backup_code: "verification_backup_code",
};

/**
 * A verification, typed as Clerk types them: `verification_otp` for codes,
 * `verification_ticket` for invitation links, `verification_password`.
 */
export function verificationJSON(status: string, strategy: string, extra: Record<string, unknown> = {}) {
  const object =
    strategy === "ticket"
      ? "verification_ticket"
      : strategy === "password"
        ? "verification_password"
        : (SECOND_FACTOR_OBJECTS[strategy] ?? "verification_otp");
  return {
    object,
    status,
    strategy,
    attempts: status === "verified" ? 1 : 0,
    expire_at: Date.now() + 10 * 60_000,
    ...extra,
  };
}

export function deletedJSON(object: string, id: string, extra: { slug?: string } = {}) {
  return { object, id, ...extra, deleted: true };
}

export function roleJSON(key: "org:admin" | "org:member") {
  return {
    object: "role",
    id: `role_${key.slice(4)}`,
    key,
    name: ROLE_NAMES[key] ?? key,
    description: key === "org:admin" ? "Manages the organization and its members" : "Belongs to the organization",
    // Clerk's creator role: whoever creates an organization becomes its admin.
    is_creator_eligible: key === "org:admin",
    permissions: [],
    created_at: 0,
    updated_at: 0,
  };
}
