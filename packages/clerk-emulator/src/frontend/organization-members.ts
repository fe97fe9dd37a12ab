import type { Request } from "express";
import { createInvitation, parseEmail, pendingInvitations, revokeInvitation, ticketUrl } from "../domain/invitations";
import { fullName } from "../domain/public-profile";
import { frontendInvitationJSON, membershipJSON } from "../json";
import { addMember, changeRole, membershipOf, removeMember } from "../domain/memberships";
import { parseRoleKey } from "../domain/roles";
import { paginate, str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { orgAccess } from "./organizations";

/**
 * An organization's members and invitations, as OrganizationProfile manages
 * them: reading takes `org:sys_memberships:read`, changing
 * `org:sys_memberships:manage` (Clerk's system permissions, whatever the role),
 * and the last member who can manage stays.
 */
export function registerMemberRoutes(route: Route, fapi: FrontendContext): void {
  const { store, reply, frontendApiUrl } = fapi;
  const { orgWith, adminOrg } = orgAccess(fapi);

  // OrganizationProfile's member search (`query`: part of an address, a name or the user id) and role filter.
  route("GET", "/v1/organizations/:id/memberships", (req, res) => {
    const { org } = orgWith(req, "org:sys_memberships:read");
    const roles = [req.query.role].flat().filter((r): r is string => typeof r === "string");
    const wanted = (str(req.query.query) ?? "").trim().toLowerCase();
    const matches = (userId: string) => {
      const user = store.user(userId);
      const texts = user ? [user.id, fullName(user), ...user.emails.map((e) => e.email)] : [];
      return texts.some((t) => (t ?? "").toLowerCase().includes(wanted));
    };
    const list = store
      .membershipsOfOrg(org.id)
      .filter((m) => roles.length === 0 || roles.includes(m.role))
      .filter((m) => !wanted || matches(m.userId))
      .map((m) => membershipJSON(store, m, "fapi"));
    return reply(req, res, paginate(list, req.query));
  });

  // Adding someone of the instance directly, without an invitation (clerk-js's `organization.addMember`).
  route("POST", "/v1/organizations/:id/memberships", (req, res) => {
    const { org } = adminOrg(req);
    const userId = str(req.body?.user_id) ?? "";
    const role = parseRoleKey(store, req.body?.role);
    return reply(req, res, membershipJSON(store, addMember(store, org, userId, role), "fapi"));
  });

  route("PATCH", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const role = parseRoleKey(store, req.body?.role);
    const m = changeRole(store, membershipOf(store, org, String(req.params.userId)), role);
    return reply(req, res, membershipJSON(store, m, "fapi"));
  });

  route("DELETE", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const m = membershipOf(store, org, String(req.params.userId));
    const json = membershipJSON(store, m, "fapi");
    removeMember(store, m);
    return reply(req, res, json);
  });

  const pendingList = (req: Request) => {
    const { org } = adminOrg(req);
    return paginate(
      pendingInvitations(store, org.id).map((i) => frontendInvitationJSON(store, i)),
      req.query,
    );
  };
  route("GET", "/v1/organizations/:id/invitations", (req, res) => reply(req, res, pendingList(req)));
  // Clerk's older form of `?status=pending`, still answered.
  route("GET", "/v1/organizations/:id/invitations/pending", (req, res) => reply(req, res, pendingList(req)));

  const invite = (req: Request, email: unknown) => {
    const { org, user } = adminOrg(req);
    return createInvitation(store, org, {
      email: parseEmail(email),
      role: parseRoleKey(store, req.body?.role),
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
    // Every address and the role are checked before any invitation is made.
    adminOrg(req);
    emails.forEach((email) => parseEmail(email));
    parseRoleKey(store, req.body?.role);
    const created = emails.map((email) => frontendInvitationJSON(store, invite(req, email)));
    return reply(req, res, created);
  });

  route("POST", "/v1/organizations/:id/invitations/:invitationId/revoke", (req, res) => {
    const { org } = adminOrg(req);
    const invitation = revokeInvitation(store, org, String(req.params.invitationId));
    return reply(req, res, frontendInvitationJSON(store, invitation));
  });
}
