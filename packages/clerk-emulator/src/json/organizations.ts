import type { InvitationRecord, MembershipRecord, OrgRecord, Store } from "../state/store";
import { permissionKeysOf, roleName } from "../domain/roles";
import { orgImageUrl, userImageUrl } from "../domain/public-profile";
import type { Api } from "./common";
import { publicUserDataJSON } from "./public-user-data";

/**
 * Clerk's spec and both SDKs type an organization's slug as a string, never
 * null: an organization of an instance with slugs turned off has an empty one.
 */
const slugJSON = (org: OrgRecord) => org.slug ?? "";

/**
 * An organization. The browser's (Frontend API) shape is closed in Clerk's
 * description: no private metadata, no creator. The Backend API adds both.
 */
export function organizationJSON(store: Store, org: OrgRecord, api: Api) {
  const image = orgImageUrl(store, org);
  const common = {
    object: "organization",
    id: org.id,
    name: org.name,
    slug: slugJSON(org),
    image_url: image,
    has_image: Boolean(org.imageId),
    members_count: store.membershipsOfOrg(org.id).length,
    pending_invitations_count: store.state.invitations.filter((i) => i.orgId === org.id && i.status === "pending")
      .length,
    max_allowed_memberships: org.maxAllowedMemberships,
    admin_delete_enabled: true,
    public_metadata: org.publicMetadata,
    created_at: org.createdAt,
    updated_at: org.updatedAt,
  };
  if (api === "fapi") return { ...common, logo_url: org.imageId ? image : null };
  return {
    ...common,
    private_metadata: org.privateMetadata,
    ...(org.createdBy ? { created_by: org.createdBy } : {}),
  };
}

export function publicOrganizationDataJSON(store: Store, org: OrgRecord) {
  return {
    id: org.id,
    name: org.name,
    slug: slugJSON(org),
    image_url: orgImageUrl(store, org),
    has_image: Boolean(org.imageId),
  };
}

export function membershipJSON(store: Store, m: MembershipRecord, api: Api) {
  const org = store.org(m.orgId);
  const user = store.user(m.userId);
  return {
    object: "organization_membership",
    id: m.id,
    role: m.role,
    role_name: roleName(store, m.role),
    permissions: permissionKeysOf(store, m.role),
    public_metadata: m.publicMetadata ?? {},
    ...(api === "bapi" ? { private_metadata: m.privateMetadata ?? {} } : {}),
    organization: org ? organizationJSON(store, org, api) : null,
    public_user_data: user ? publicUserDataJSON(store, user) : null,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

function invitationCommon(store: Store, inv: InvitationRecord) {
  return {
    object: "organization_invitation",
    id: inv.id,
    email_address: inv.email,
    organization_id: inv.orgId,
    role: inv.role,
    role_name: roleName(store, inv.role),
    status: inv.status,
    public_metadata: {},
    expires_at: inv.expiresAt,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
  };
}

/** An invitation as the browser sees it: no link (it is a secret), no inviter. */
export function frontendInvitationJSON(store: Store, inv: InvitationRecord) {
  const org = inv.orgId ? store.org(inv.orgId) : null;
  return {
    ...invitationCommon(store, inv),
    url: null,
    ...(org ? { public_organization_data: publicOrganizationDataJSON(store, org) } : {}),
  };
}

/** An invitation as the Backend API shows it: its link (`url`, which redeems it) and who sent it. */
export function backendInvitationJSON(store: Store, inv: InvitationRecord, url: string | null) {
  const inviter = inv.inviterUserId ? store.user(inv.inviterUserId) : null;
  return {
    ...invitationCommon(store, inv),
    private_metadata: {},
    url,
    inviter_id: inv.inviterUserId,
    public_inviter_data: inviter
      ? {
          user_id: inviter.id,
          first_name: inviter.firstName,
          last_name: inviter.lastName,
          image_url: userImageUrl(store, inviter),
          has_image: Boolean(inviter.imageId),
          identifier: inviter.email,
        }
      : null,
  };
}

/** An invitation to the application (not to an organization), as the Backend API's `/v1/invitations` shows it. */
export function instanceInvitationJSON(inv: InvitationRecord, url: string) {
  const expired = inv.status === "pending" && inv.expiresAt <= Date.now();
  return {
    object: "invitation",
    id: inv.id,
    email_address: inv.email,
    public_metadata: {},
    revoked: inv.status === "revoked",
    status: expired ? "expired" : inv.status,
    url,
    expires_at: inv.expiresAt,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
  };
}
