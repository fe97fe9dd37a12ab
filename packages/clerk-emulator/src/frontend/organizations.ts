import type { Request } from "express";
import {
  createOrganizationFor,
  deleteOrganization,
  removeOrganizationLogo,
  requireAdminDeleteEnabled,
  requireOrganizationsEnabled,
  setOrganizationLogo,
  updateOrganization,
  validateOrganizationInput,
} from "../domain/organizations";
import { invitationsTo, redeemTicket } from "../domain/invitations";
import { deletedJSON, frontendInvitationJSON, membershipJSON, organizationJSON } from "../json";
import { removeMember } from "../domain/memberships";
import { requirePermission } from "../domain/roles";
import { ApiError } from "../domain/errors";
import { paginate, str } from "../http/routing";
import type { UserRecord } from "../state/store";
import { readImageUpload } from "../http/uploads";
import type { FrontendContext, Route } from "./context";

/** The organization a request names, if the signed-in person belongs to it (else the same 404 as for none). */
export function orgAccess(fapi: FrontendContext) {
  const { store, me } = fapi;
  const memberOrg = (req: Request) => {
    const { user } = me(req);
    const org = store.org(String(req.params.id));
    const membership = org ? store.membership(org.id, user.id) : null;
    if (!org || !membership) throw new ApiError(404, "resource_not_found", "Organization not found");
    return { org, membership, user };
  };
  /** What the signed-in member's role must allow (Clerk's system permission `org:sys_…`), or Clerk's 403. */
  const orgWith = (req: Request, permission: string) => {
    const found = memberOrg(req);
    requirePermission(store, found.membership, permission);
    return found;
  };
  /** Managing members, as Clerk's OrganizationProfile does it: `org:sys_memberships:manage` (an admin's). */
  const adminOrg = (req: Request) => orgWith(req, "org:sys_memberships:manage");
  return { memberOrg, orgWith, adminOrg };
}

/** Organizations: the person's own, creating, renaming, logos, deleting; roles; the person's memberships and invitations. */
export function registerOrganizationRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;
  const { memberOrg, orgWith } = orgAccess(fapi);

  route("GET", "/v1/me/organization_memberships", (req, res) => {
    const { user } = me(req);
    const list = store.membershipsOfUser(user.id).map((m) => membershipJSON(store, m, "fapi"));
    return reply(req, res, paginate(list, req.query));
  });

  route("DELETE", "/v1/me/organization_memberships/:orgId", (req, res) => {
    const { user } = me(req);
    const org = store.org(String(req.params.orgId));
    const membership = org ? store.membership(org.id, user.id) : null;
    if (!membership) throw new ApiError(404, "resource_not_found", "Organization not found");
    removeMember(store, membership);
    const deleted = { object: "organization_membership", id: membership.id, deleted: true };
    return reply(req, res, deleted);
  });

  /** Invitations to the signed-in user's address: Clerk's switcher offers to accept them. */
  const myInvitations = (user: UserRecord) => invitationsTo(store, user, ["pending"]);

  route("GET", "/v1/me/organization_invitations", (req, res) => {
    const { user } = me(req);
    const status = str(req.query.status);
    const list = status && status !== "pending" ? [] : myInvitations(user);
    return reply(
      req,
      res,
      paginate(
        list.map((i) => frontendInvitationJSON(store, i)),
        req.query,
      ),
    );
  });

  route("POST", "/v1/me/organization_invitations/:id/accept", (req, res) => {
    const { user } = me(req);
    const invitation = myInvitations(user).find((i) => i.id === req.params.id);
    if (!invitation) throw new ApiError(404, "organization_invitation_not_found", "Invitation not found");
    redeemTicket(store, { kind: "invitation", invitation }, user.id);
    return reply(req, res, frontendInvitationJSON(store, invitation));
  });

  // Organizations -------------------------------------------------------------
  route("POST", "/v1/organizations", (req, res) => {
    const { user } = me(req);
    requireOrganizationsEnabled(store);
    const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
    const org = createOrganizationFor(store, user.id, input);
    return reply(req, res, organizationJSON(store, org, "fapi"));
  });

  route("GET", "/v1/organizations/:id", (req, res) =>
    reply(req, res, organizationJSON(store, memberOrg(req).org, "fapi")),
  );

  route("PATCH", "/v1/organizations/:id", (req, res) => {
    const { org } = orgWith(req, "org:sys_profile:manage");
    updateOrganization(store, org, { name: str(req.body?.name), slug: str(req.body?.slug) });
    return reply(req, res, organizationJSON(store, org, "fapi"));
  });

  route("DELETE", "/v1/organizations/:id", (req, res) => {
    const { org } = orgWith(req, "org:sys_profile:delete");
    requireAdminDeleteEnabled(store);
    deleteOrganization(store, org);
    return reply(req, res, deletedJSON("organization", org.id, org.slug ? { slug: org.slug } : {}));
  });

  route("PUT", "/v1/organizations/:id/logo", async (req, res) => {
    const { org } = orgWith(req, "org:sys_profile:manage");
    setOrganizationLogo(store, org, await readImageUpload(req));
    return reply(req, res, organizationJSON(store, org, "fapi"));
  });

  route("DELETE", "/v1/organizations/:id/logo", (req, res) => {
    const { org } = orgWith(req, "org:sys_profile:manage");
    const id = removeOrganizationLogo(store, org);
    return reply(req, res, deletedJSON("image", id));
  });

  // Membership requests, domains and suggestions: frontend/organization-domains.ts.
}
