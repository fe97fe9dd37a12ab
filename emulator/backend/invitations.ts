import type { Request } from "express";
import { createInstanceInvitation, createInvitation, parseEmail, revokeInvitation, ticketUrl } from "../invitations";
import { backendInvitationJSON, instanceInvitationJSON } from "../json";
import { parseRole } from "../memberships";
import { ApiError, clampInt, paginate, str } from "../routing";
import type { InvitationRecord } from "../store";
import { isTrue } from "./body-params";
import type { BackendContext, Route } from "./context";
import { filterList, INSTANCE_INVITATION_LIST, orderBy, ORGANIZATION_INVITATION_LIST, page } from "./query-params";

/** Clerk's orders for invitation lists (`order_by`). */
const invitationOrders: Record<string, (i: InvitationRecord) => string | number> = {
  created_at: (i) => i.createdAt,
  email_address: (i) => i.email,
};

/** Invitations to an organization, and to the application. */
export function registerInvitationRoutes(route: Route, { store, org, frontendApiUrl }: BackendContext): void {
  /** Clerk emails an invitation unless the request says `notify: false`. */
  const emailLink = (req: Request) =>
    req.body?.notify === false || req.body?.notify === "false"
      ? null
      : (ticket: string) => ticketUrl(frontendApiUrl(req), ticket);
  const invitationOut = (req: Request) => (inv: InvitationRecord) =>
    backendInvitationJSON(store, inv, ticketUrl(frontendApiUrl(req), inv.ticket));

  route("GET", "/v1/organizations/:id/invitations", (req) => {
    const found = org(req);
    const mine = store.state.invitations.filter((i) => i.orgId === found.id);
    // Asked for pending ones, an expired invitation is not among them (its status is `expired`).
    const list = orderBy(
      req,
      filterList(ORGANIZATION_INVITATION_LIST, req, store, mine),
      invitationOrders,
      "created_at",
    );
    return paginate(list.map(invitationOut(req)), req.query);
  });
  route("POST", "/v1/organizations/:id/invitations", (req) => {
    const invitation = createInvitation(store, org(req), {
      email: parseEmail(req.body?.email_address),
      role: parseRole(req.body?.role),
      inviterUserId: str(req.body?.inviter_user_id),
      redirectUrl: str(req.body?.redirect_url),
      expiresInDays: clampInt(req.body?.expires_in_days, 0, 0, 365),
      link: emailLink(req),
    });
    return invitationOut(req)(invitation);
  });
  route("GET", "/v1/organizations/:id/invitations/:invitationId", (req) => {
    const found = org(req);
    const invitation = store.state.invitations.find((i) => i.id === req.params.invitationId && i.orgId === found.id);
    if (!invitation) throw new ApiError(404, "organization_invitation_not_found", "Invitation not found");
    return invitationOut(req)(invitation);
  });
  route("POST", "/v1/organizations/:id/invitations/:invitationId/revoke", (req) =>
    invitationOut(req)(revokeInvitation(store, org(req), String(req.params.invitationId))),
  );

  // Invitations to the application: the link signs up the invited address.
  const instanceInvitationOut = (req: Request) => (inv: InvitationRecord) =>
    instanceInvitationJSON(inv, ticketUrl(frontendApiUrl(req), inv.ticket));
  route("GET", "/v1/invitations", (req) => {
    const mine = store.state.invitations.filter((i) => i.orgId === null);
    const list = orderBy(req, filterList(INSTANCE_INVITATION_LIST, req, store, mine), invitationOrders, "-created_at");
    return page(req, list).map(instanceInvitationOut(req));
  });
  route("POST", "/v1/invitations", (req) => {
    const invitation = createInstanceInvitation(store, {
      email: parseEmail(req.body?.email_address),
      redirectUrl: str(req.body?.redirect_url),
      expiresInDays: clampInt(req.body?.expires_in_days, 0, 0, 365),
      ignoreExisting: isTrue(req.body?.ignore_existing),
      link: emailLink(req),
    });
    return instanceInvitationOut(req)(invitation);
  });
  route("POST", "/v1/invitations/:id/revoke", (req) => {
    const invitation = store.state.invitations.find((i) => i.orgId === null && i.id === req.params.id);
    if (!invitation) throw new ApiError(404, "resource_not_found", "Invitation not found");
    if (invitation.status !== "pending") {
      throw new ApiError(400, "invitation_not_pending", "Only a pending invitation can be revoked.");
    }
    invitation.status = "revoked";
    invitation.updatedAt = Date.now();
    store.changed();
    return instanceInvitationOut(req)(invitation);
  });
}
