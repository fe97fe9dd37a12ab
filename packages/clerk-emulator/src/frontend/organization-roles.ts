import { acceptMembershipRequest, membershipRequestsOf, rejectMembershipRequest } from "../domain/membership-requests";
import { membershipRequestJSON, roleJSON } from "../json";
import { paginate, str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { orgAccess } from "./organizations";

/** An organization's roles (what OrganizationProfile offers) and the requests to join it. */
export function registerOrganizationRoleRoutes(route: Route, fapi: FrontendContext): void {
  const { store, reply } = fapi;
  const { memberOrg, adminOrg } = orgAccess(fapi);

  // Every role of the instance, oldest first (Clerk's default roles, then the custom ones).
  route("GET", "/v1/organizations/:id/roles", (req, res) => {
    memberOrg(req);
    const roles = [...store.state.roles]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((r) => roleJSON(store, r, "fapi"));
    return reply(req, res, { ...paginate(roles, req.query), has_role_set_migration: false });
  });

  route("GET", "/v1/organizations/:id/membership_requests", (req, res) => {
    const { org } = adminOrg(req);
    const list = membershipRequestsOf(store, org, str(req.query.status)).map((r) => membershipRequestJSON(store, r));
    return reply(req, res, paginate(list, req.query));
  });

  route("POST", "/v1/organizations/:id/membership_requests/:requestId/accept", (req, res) => {
    const { org } = adminOrg(req);
    const request = acceptMembershipRequest(store, org, String(req.params.requestId));
    return reply(req, res, membershipRequestJSON(store, request));
  });

  route("POST", "/v1/organizations/:id/membership_requests/:requestId/reject", (req, res) => {
    const { org } = adminOrg(req);
    const request = rejectMembershipRequest(store, org, String(req.params.requestId));
    return reply(req, res, membershipRequestJSON(store, request));
  });
}
