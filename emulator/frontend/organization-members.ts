import type { Request } from "express";
import { createInvitation, parseEmail, pendingInvitations, revokeInvitation, ticketUrl } from "../invitations";
import { frontendInvitationJSON, membershipJSON } from "../json";
import { changeRole, membershipOf, parseRole, removeMember } from "../memberships";
import { paginate } from "../routing";
import type { FrontendContext, Route } from "./context";
import { orgAccess } from "./organizations";

/** An organization's members and invitations, as OrganizationProfile manages them: admins only, and the last admin stays. */
export function registerMemberRoutes(route: Route, fapi: FrontendContext): void {
  const { store, reply, frontendApiUrl } = fapi;
  const { memberOrg, adminOrg } = orgAccess(fapi);

  route("GET", "/v1/organizations/:id/memberships", (req, res) => {
    const { org } = memberOrg(req);
    const list = store.membershipsOfOrg(org.id).map((m) => membershipJSON(store, m, "fapi"));
    return reply(req, res, paginate(list, req.query));
  });

  route("PATCH", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const m = changeRole(store, membershipOf(store, org, String(req.params.userId)), parseRole(req.body?.role));
    return reply(req, res, membershipJSON(store, m, "fapi"));
  });

  route("DELETE", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const m = membershipOf(store, org, String(req.params.userId));
    const json = membershipJSON(store, m, "fapi");
    removeMember(store, m);
    return reply(req, res, json);
  });

  route("GET", "/v1/organizations/:id/invitations", (req, res) => {
    const { org } = adminOrg(req);
    const list = pendingInvitations(store, org.id).map((i) => frontendInvitationJSON(store, i));
    return reply(req, res, paginate(list, req.query));
  });

  const invite = (req: Request, email: unknown) => {
    const { org, user } = adminOrg(req);
    return createInvitation(store, org, {
      email: parseEmail(email),
      role: parseRole(req.body?.role),
      inviterUserId: user.id,
      redirectUrl: null,
      link: (ticket) => ticketUrl(frontendApiUrl(req), ticket),
    });
  };

  route("POST", "/v1/organizations/:id/invitations", (req, res) =>
    reply(req, res, frontendInvitationJSON(store, invite(req, req.body?.email_address))),
  );

  route("POST", "/v1/organizations/:id/invitations/bulk", (req, res) => {
    const raw: unknown = req.body?.email_address;
    const emails = Array.isArray(raw) ? raw : [raw];
    // Every address is checked for its form before any invitation is made.
    emails.forEach((email) => parseEmail(email));
    const created = emails.map((email) => frontendInvitationJSON(store, invite(req, email)));
    return reply(req, res, created);
  });

  route("POST", "/v1/organizations/:id/invitations/:invitationId/revoke", (req, res) => {
    const { org } = adminOrg(req);
    const invitation = revokeInvitation(store, org, String(req.params.invitationId));
    return reply(req, res, frontendInvitationJSON(store, invitation));
  });
}
