import type { OrganizationDomainRecord, OrganizationSuggestionRecord, Store } from "../state/store";
import { publicOrganizationDataJSON } from "./organizations";

/**
 * Organizations' verified domains, the suggestions they make and the requests
 * to join those become, as Clerk's APIs and webhooks show them (the Backend
 * API's OrganizationDomain, the Frontend API's Client.OrganizationDomain,
 * Client.OrganizationSuggestion and Client.OrganizationMembershipRequest).
 */
export function organizationDomainJSON(store: Store, d: OrganizationDomainRecord) {
  const org = store.org(d.orgId);
  const affiliation = d.affiliation
    ? {
        status: d.affiliation.status,
        strategy: "email_code",
        attempts: d.affiliation.attempts,
        expire_at: d.affiliation.expireAt,
        verified_at: d.affiliation.verifiedAt,
      }
    : null;
  const ownership =
    d.ownershipVerifiedAt === null
      ? null
      : {
          status: "verified",
          strategy: "dns_record",
          attempts: null,
          expire_at: null,
          verified_at: d.ownershipVerifiedAt,
        };
  return {
    object: "organization_domain",
    id: d.id,
    organization_id: d.orgId,
    name: d.name,
    enrollment_mode: d.enrollmentMode,
    affiliation_email_address: d.affiliationEmail,
    affiliation_verification: affiliation,
    ownership_verification: ownership,
    // Deprecated in Clerk's description, and still what clerk-js 5 reads: the affiliation's.
    verification: affiliation,
    total_pending_invitations: store.state.invitations.filter((i) => i.domainId === d.id && i.status === "pending")
      .length,
    total_pending_suggestions: store.state.organizationSuggestions.filter(
      (s) => s.domainId === d.id && s.status === "pending",
    ).length,
    ...(org ? { public_organization_data: publicOrganizationDataJSON(store, org) } : {}),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export function organizationSuggestionJSON(store: Store, s: OrganizationSuggestionRecord) {
  const org = store.org(s.orgId);
  return {
    object: "organization_suggestion",
    id: s.id,
    ...(org ? { public_organization_data: publicOrganizationDataJSON(store, org) } : {}),
    status: s.status,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
