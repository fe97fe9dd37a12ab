import type { Request } from "express";
import { deletedJSON } from "../json";
import {
  createDomain,
  deleteDomain,
  isVerified,
  parseDomainName,
  parseEnrollmentMode,
  requireDomainsEnabled,
  updateDomain,
  verifyDomainOwnership,
} from "../domain/organization-domains";
import { organizationDomainJSON } from "../json/organization-domains";
import { ApiError } from "../domain/errors";
import { paginate, str, valuesOf } from "../http/routing";
import type { OrganizationDomainRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { bodyOf, isTrue } from "./declarations";
import { orderBy } from "./lists";

/** `verified=true|false`, as the lists take it (anything else is Clerk's 422). */
function verifiedFilter(req: Request): ((d: OrganizationDomainRecord) => boolean) | null {
  const value = req.query.verified;
  if (value === undefined) return null;
  if (value !== "true" && value !== "false") {
    throw new ApiError(422, "form_param_value_invalid", "is invalid", "verified", "verified must be true or false.");
  }
  return (d) => isVerified(d) === (value === "true");
}

/** Clerk's `enrollment_mode` filter: modes kept, or (`-mode`) left out. */
function enrollmentFilter(req: Request): ((d: OrganizationDomainRecord) => boolean) | null {
  const values = valuesOf(req.query.enrollment_mode);
  if (values.length === 0) return null;
  const include = values.filter((v) => !v.startsWith("-")).map((v) => parseEnrollmentMode(v.replace(/^\+/, "")));
  const exclude = values.filter((v) => v.startsWith("-")).map((v) => parseEnrollmentMode(v.slice(1)));
  return (d) => !exclude.includes(d.enrollmentMode) && (include.length === 0 || include.includes(d.enrollmentMode));
}

const domainOrders: Record<string, (d: OrganizationDomainRecord) => string | number> = {
  created_at: (d) => d.createdAt,
  name: (d) => d.name,
};

/** Organizations' verified domains: per organization, and across the instance. */
export function registerOrganizationDomainRoutes(route: Route, { store, org }: BackendContext): void {
  const domainOf = (req: Request) => {
    const found = org(req);
    const domain = store.state.organizationDomains.find((d) => d.id === req.params.domainId && d.orgId === found.id);
    if (!domain) throw new ApiError(404, "resource_not_found", "Organization domain not found");
    return domain;
  };
  const out = (d: OrganizationDomainRecord) => organizationDomainJSON(store, d);

  route(
    "GET",
    "/v1/organizations/:id/domains",
    { query: ["verified", "enrollment_mode", "limit", "offset"] },
    (req) => {
      const found = org(req);
      const filters = [verifiedFilter(req), enrollmentFilter(req)].filter((f) => f !== null);
      const list = store.state.organizationDomains.filter((d) => d.orgId === found.id && filters.every((f) => f(d)));
      return paginate(list.map(out), req.query);
    },
  );

  route(
    "POST",
    "/v1/organizations/:id/domains",
    { body: { name: "kept", enrollment_mode: "kept", verified: "kept" } },
    (req) => {
      const found = org(req);
      requireDomainsEnabled(store);
      const body = bodyOf(req.body);
      const name = parseDomainName(store, body.name);
      const enrollmentMode =
        body.enrollment_mode === undefined ? "manual_invitation" : parseEnrollmentMode(body.enrollment_mode);
      // Clerk's Backend API makes a domain verified unless told otherwise.
      const verified = body.verified === undefined || body.verified === null || isTrue(body.verified);
      return out(createDomain(store, found, { name, enrollmentMode, verified, affiliationEmail: null }));
    },
  );

  route(
    "PATCH",
    "/v1/organizations/:id/domains/:domainId",
    { body: { enrollment_mode: "kept", verified: "kept" } },
    (req) => {
      const domain = domainOf(req);
      const body = bodyOf(req.body);
      const verified = body.verified === undefined || body.verified === null ? null : isTrue(body.verified);
      return out(updateDomain(store, domain, { verified, enrollmentMode: str(body.enrollment_mode) }));
    },
  );

  route("DELETE", "/v1/organizations/:id/domains/:domainId", { body: {} }, (req) => {
    const domain = domainOf(req);
    deleteDomain(store, domain);
    return deletedJSON("organization_domain", domain.id);
  });

  // Clerk checks a DNS TXT record; the emulator has no DNS to check, and this is the call that marks it checked.
  route("POST", "/v1/organizations/:id/domains/:domainId/verify_ownership", { body: {} }, (req) => {
    return out(verifyDomainOwnership(store, domainOf(req)));
  });

  route(
    "GET",
    "/v1/organization_domains",
    { query: ["organization_id", "verified", "enrollment_mode", "query", "domains", "order_by", "offset", "limit"] },
    (req) => {
      const orgIds = valuesOf(req.query.organization_id);
      const names = valuesOf(req.query.domains).map((n) => n.trim().toLowerCase());
      const query = (str(req.query.query) ?? "").trim().toLowerCase();
      const filters = [
        verifiedFilter(req),
        enrollmentFilter(req),
        orgIds.length ? (d: OrganizationDomainRecord) => orgIds.includes(d.orgId) : null,
        names.length ? (d: OrganizationDomainRecord) => names.includes(d.name) : null,
        query ? (d: OrganizationDomainRecord) => d.name.includes(query) : null,
      ].filter((f) => f !== null);
      const list = store.state.organizationDomains.filter((d) => filters.every((f) => f(d)));
      return paginate(orderBy(req, list, domainOrders, "-created_at").map(out), req.query);
    },
  );
}
