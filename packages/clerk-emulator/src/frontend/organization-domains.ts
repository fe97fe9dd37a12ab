import type { Request } from "express";
import { deletedJSON } from "../json";
import {
  acceptSuggestion,
  attemptAffiliation,
  createDomain,
  deleteDomain,
  domainOfEmail,
  isVerified,
  parseDomainName,
  parseEnrollmentMode,
  prepareAffiliation,
  requireDomainsEnabled,
  setEnrollmentMode,
} from "../domain/organization-domains";
import { organizationDomainJSON, organizationSuggestionJSON } from "../json/organization-domains";
import { parseEmail } from "../domain/invitations";
import { ApiError } from "../domain/errors";
import { paginate, str, valuesOf } from "../http/routing";
import { joinWaitlist } from "../domain/waitlist";
import type { FrontendContext, Route } from "./context";
import { orgAccess } from "./organizations";
import { TEST_EMAIL_CODE } from "../domain/verification-codes";

/**
 * Verified domains as `<OrganizationProfile/>` manages them (admins add a
 * domain, verify it with an email code to an address on it, choose how it
 * enrolls people), the person's suggestions to join and their acceptance,
 * an organization's membership requests, the waitlist, and the proxy health
 * check Clerk's `POST /v1/proxy_checks` calls through an app's proxy.
 */
/** `status`, given once, repeated, or comma-separated (`pending,accepted`), as clerk-js may send it. */
const statusesOf = (req: Request) => valuesOf(req.query.status).flatMap((v) => v.split(",").filter(Boolean));

export function registerOrganizationDomainRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;
  const { orgWith } = orgAccess(fapi);

  /** Reading domains takes Clerk's `org:sys_domains:read`, managing them `org:sys_domains:manage` (admins have both). */
  const domainReader = (req: Request) => orgWith(req, "org:sys_domains:read");
  const adminOrg = (req: Request) => orgWith(req, "org:sys_domains:manage");
  const domainIn = (orgId: string, req: Request) => {
    const domain = store.state.organizationDomains.find((d) => d.id === req.params.domainId && d.orgId === orgId);
    if (!domain) throw new ApiError(404, "resource_not_found", "Organization domain not found");
    return domain;
  };
  const managed = (req: Request) => {
    const { org, user } = adminOrg(req);
    return { org, user, domain: domainIn(org.id, req) };
  };

  route("GET", "/v1/organizations/:id/domains", (req, res) => {
    const { org } = domainReader(req);
    const verified = str(req.query.verified);
    const mode = str(req.query.enrollment_mode);
    const list = store.state.organizationDomains.filter(
      (d) =>
        d.orgId === org.id &&
        (verified === null || isVerified(d) === (verified === "true")) &&
        (mode === null || d.enrollmentMode === mode),
    );
    return reply(
      req,
      res,
      paginate(
        list.map((d) => organizationDomainJSON(store, d)),
        req.query,
      ),
    );
  });

  route("POST", "/v1/organizations/:id/domains", (req, res) => {
    const { org, user } = adminOrg(req);
    requireDomainsEnabled(store);
    const name = parseDomainName(store, req.body?.name);
    const mode = req.body?.enrollment_mode ? parseEnrollmentMode(req.body.enrollment_mode) : "manual_invitation";
    // An admin who already has a verified address on the domain verifies it by adding it (Clerk's docs).
    const own = user.emails.find((e) => e.verified && domainOfEmail(e.email) === name);
    const domain = createDomain(store, org, {
      name,
      enrollmentMode: own ? mode : "manual_invitation",
      verified: Boolean(own),
      affiliationEmail: own?.email ?? null,
    });
    return reply(req, res, organizationDomainJSON(store, domain));
  });

  route("GET", "/v1/organizations/:id/domains/:domainId", (req, res) => {
    const { org } = domainReader(req);
    return reply(req, res, organizationDomainJSON(store, domainIn(org.id, req)));
  });

  route("DELETE", "/v1/organizations/:id/domains/:domainId", (req, res) => {
    const { domain } = managed(req);
    deleteDomain(store, domain);
    return reply(req, res, deletedJSON("organization_domain", domain.id));
  });

  route("POST", "/v1/organizations/:id/domains/:domainId/update_enrollment_mode", (req, res) => {
    const { domain } = managed(req);
    const deletePending = req.body?.delete_pending === true || req.body?.delete_pending === "true";
    setEnrollmentMode(store, domain, parseEnrollmentMode(req.body?.enrollment_mode), deletePending);
    return reply(req, res, organizationDomainJSON(store, domain));
  });

  route("POST", "/v1/organizations/:id/domains/:domainId/prepare_affiliation_verification", (req, res) => {
    const { domain } = managed(req);
    const email = parseEmail(req.body?.affiliation_email_address, "affiliation_email_address");
    prepareAffiliation(store, domain, email, TEST_EMAIL_CODE);
    return reply(req, res, organizationDomainJSON(store, domain));
  });

  route("POST", "/v1/organizations/:id/domains/:domainId/attempt_affiliation_verification", (req, res) => {
    const { domain } = managed(req);
    attemptAffiliation(store, domain, str(req.body?.code) ?? "", TEST_EMAIL_CODE);
    return reply(req, res, organizationDomainJSON(store, domain));
  });

  // The person's suggestions ---------------------------------------------------
  route("GET", "/v1/me/organization_suggestions", (req, res) => {
    const { user } = me(req);
    const statuses = statusesOf(req);
    const list = store.state.organizationSuggestions.filter(
      (s) => s.userId === user.id && store.org(s.orgId) && (statuses.length === 0 || statuses.includes(s.status)),
    );
    return reply(
      req,
      res,
      paginate(
        list.map((s) => organizationSuggestionJSON(store, s)),
        req.query,
      ),
    );
  });

  route("POST", "/v1/me/organization_suggestions/:suggestionId/accept", (req, res) => {
    const { user } = me(req);
    const suggestion = store.state.organizationSuggestions.find(
      (s) => s.id === req.params.suggestionId && s.userId === user.id,
    );
    if (!suggestion) throw new ApiError(404, "resource_not_found", "Suggestion not found");
    acceptSuggestion(store, suggestion);
    return reply(req, res, organizationSuggestionJSON(store, suggestion));
  });

  // Requests to join, as an admin sees them, accepted and rejected: organization-roles.ts.

  // The waitlist: anyone may join (clerk-js's <Waitlist/>), signed in or not. Clerk answers the bare entry, not
  // wrapped with the client (its spec's Client.WaitlistEntry; clerk-js 6's Waitlist.join reads the whole payload,
  // clerk-js 5 read `.response` and so never saw the id, which nothing used).
  route("POST", "/v1/waitlist", (req) => {
    const entry = joinWaitlist(store, parseEmail(req.body?.email_address), true);
    return { object: "waitlist_entry", id: entry.id };
  });
}
