import { newId } from "../state/ids";
import { createInvitation } from "./invitations";
import { affiliationCodeEmail } from "./messages";
import { ApiError } from "./errors";
import type {
  DomainEnrollmentMode,
  OrganizationDomainRecord,
  OrganizationSuggestionRecord,
  OrgRecord,
  Store,
  UserRecord,
} from "../state/store";

/**
 * Organizations' verified domains, as Clerk plays them
 * (https://clerk.com/docs/guides/organizations/add-members/verified-domains):
 * a domain verified by affiliation (an email code to an address on it, or an
 * admin who already has one) whose enrollment mode is automatic gives every
 * user with a verified address on it a pending invitation
 * (`automatic_invitation`, with the instance's default role for domains) or
 * a suggestion (`automatic_suggestion`) to ask to join; a suggestion accepted
 * is a membership request for an admin to accept or reject.
 */
export const ENROLLMENT_MODES: DomainEnrollmentMode[] = [
  "manual_invitation",
  "automatic_invitation",
  "automatic_suggestion",
  "enterprise_sso",
];

/** Common email providers: a verified domain cannot be one (Clerk's `organization_domain_common`). */
const COMMON_PROVIDERS = new Set([
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "icloud.com",
  "me.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "gmx.com",
  "mail.com",
  "yandex.com",
]);

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const domainOfEmail = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

export function parseEnrollmentMode(value: unknown, param = "enrollment_mode"): DomainEnrollmentMode {
  if (!ENROLLMENT_MODES.includes(value as DomainEnrollmentMode)) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      param,
      `${param} must be one of ${ENROLLMENT_MODES.join(", ")}.`,
    );
  }
  return value as DomainEnrollmentMode;
}

/** The instance must allow domains, and an automatic mode must be one it allows (Clerk's organization settings). */
function requireModeEnabled(store: Store, mode: DomainEnrollmentMode): void {
  const settings = store.state.instance.organizationSettings;
  if (mode === "manual_invitation" || settings.domainsEnrollmentModes.includes(mode)) return;
  throw new ApiError(
    403,
    "organization_domain_enrollment_mode_not_enabled",
    `The ${mode} enrollment mode is not enabled for this instance.`,
    "enrollment_mode",
  );
}

export function requireDomainsEnabled(store: Store): void {
  if (store.state.instance.organizationSettings.domainsEnabled) return;
  throw new ApiError(
    403,
    "organization_domains_not_enabled",
    "organization domains not enabled",
    undefined,
    "This instance does not have domains enabled for organizations.",
  );
}

export function parseDomainName(store: Store, value: unknown): string {
  const name = (typeof value === "string" ? value : "").trim().toLowerCase();
  if (!DOMAIN.test(name)) {
    throw new ApiError(422, "form_param_format_invalid", "is invalid", "name", "name must be a valid domain name.");
  }
  if (COMMON_PROVIDERS.has(name)) {
    throw new ApiError(
      400,
      "organization_domain_common",
      "This is a common email provider domain.",
      "name",
      `${name} is a common email provider and cannot be an organization's domain.`,
    );
  }
  if (store.state.organizationDomains.some((d) => d.name === name)) {
    throw new ApiError(
      400,
      "organization_domain_already_exists",
      "This domain is already in use.",
      "name",
      `${name} is already used by an organization.`,
    );
  }
  return name;
}

const verifiedAffiliation = (at: number) => ({
  status: "verified" as const,
  attempts: 1,
  expireAt: null,
  verifiedAt: at,
});

export function createDomain(
  store: Store,
  org: OrgRecord,
  input: { name: string; enrollmentMode: DomainEnrollmentMode; verified: boolean; affiliationEmail: string | null },
): OrganizationDomainRecord {
  if (input.enrollmentMode !== "manual_invitation" && !input.verified) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "enrollment_mode",
      "Only a verified domain can enroll users automatically.",
    );
  }
  requireModeEnabled(store, input.enrollmentMode);
  const t = Date.now();
  const domain: OrganizationDomainRecord = {
    id: newId("orgdmn"),
    orgId: org.id,
    name: input.name,
    enrollmentMode: input.enrollmentMode,
    enrollmentSince: t,
    affiliationEmail: input.affiliationEmail,
    affiliation: input.verified ? verifiedAffiliation(t) : null,
    ownershipVerifiedAt: null,
    createdAt: t,
    updatedAt: t,
  };
  return store.write((state) => {
    state.organizationDomains.push(domain);
    return domain;
  });
}

export const isVerified = (d: OrganizationDomainRecord) => d.affiliation?.status === "verified";

/**
 * A new enrollment mode. `deletePending` (the Frontend API's `delete_pending`) revokes the invitations and
 * drops the suggestions the domain made that are still pending, as clerk-js's OrganizationProfile offers.
 */
export function setEnrollmentMode(
  store: Store,
  domain: OrganizationDomainRecord,
  mode: DomainEnrollmentMode,
  deletePending = false,
): void {
  if (mode !== "manual_invitation" && !isVerified(domain)) {
    throw new ApiError(
      400,
      "organization_domain_not_verified",
      "The domain is not verified.",
      "enrollment_mode",
      "Verify the domain before choosing an automatic enrollment mode.",
    );
  }
  requireModeEnabled(store, mode);
  const t = Date.now();
  store.write((state) => {
    if (deletePending) {
      for (const i of state.invitations)
        if (i.domainId === domain.id && i.status === "pending") Object.assign(i, { status: "revoked", updatedAt: t });
      state.organizationSuggestions = state.organizationSuggestions.filter(
        (s) => s.domainId !== domain.id || s.status !== "pending",
      );
    }
    if (mode !== domain.enrollmentMode) domain.enrollmentSince = t;
    domain.enrollmentMode = mode;
    domain.updatedAt = t;
  });
}

/** Marks the affiliation verified (the Backend API's `verified: true`, or a code attempted). */
export function setVerified(store: Store, domain: OrganizationDomainRecord, verified: boolean): void {
  const t = Date.now();
  store.write(() => {
    domain.affiliation = verified ? verifiedAffiliation(t) : null;
    // An unverified domain enrolls nobody.
    if (!verified && domain.enrollmentMode !== "manual_invitation") {
      domain.enrollmentMode = "manual_invitation";
      domain.enrollmentSince = t;
    }
    domain.updatedAt = t;
  });
}

/**
 * The Backend API's update of a domain: verified first, so that one request can verify a domain and make it
 * enroll users, then the enrollment mode (`null`: not given). Each is its own change: a mode refused leaves the
 * domain verified, and told so.
 */
export function updateDomain(
  store: Store,
  domain: OrganizationDomainRecord,
  input: { verified: boolean | null; enrollmentMode: string | null },
): OrganizationDomainRecord {
  if (input.verified !== null && input.verified !== isVerified(domain)) setVerified(store, domain, input.verified);
  if (input.enrollmentMode !== null) setEnrollmentMode(store, domain, parseEnrollmentMode(input.enrollmentMode));
  return domain;
}

/** Clerk checks a DNS TXT record; the emulator has no DNS to check, and marks the ownership verified when asked. */
export function verifyDomainOwnership(store: Store, domain: OrganizationDomainRecord): OrganizationDomainRecord {
  return store.write(() => {
    domain.ownershipVerifiedAt ??= Date.now();
    domain.updatedAt = Date.now();
    return domain;
  });
}

/** The code goes to an address on the domain; it is TEST_EMAIL_CODE, as every code the emulator sends. */
export function prepareAffiliation(store: Store, domain: OrganizationDomainRecord, email: string, code: string): void {
  if (domainOfEmail(email) !== domain.name) {
    throw new ApiError(
      400,
      "organization_domain_mismatch",
      "The email address does not match the domain.",
      "affiliation_email_address",
      `${email} is not an address on ${domain.name}.`,
    );
  }
  const t = Date.now();
  store.write(() => {
    domain.affiliationEmail = email;
    domain.affiliation = { status: "unverified", attempts: 0, expireAt: t + 10 * 60_000, verifiedAt: null };
    domain.updatedAt = t;
  });
  store.send(affiliationCodeEmail(store, { address: email, orgId: domain.orgId, domain: domain.name }, code));
}

export function attemptAffiliation(store: Store, domain: OrganizationDomainRecord, given: string, code: string): void {
  const pending = domain.affiliation;
  if (!pending || pending.status === "verified") {
    throw new ApiError(
      400,
      pending ? "verification_already_verified" : "verification_missing",
      pending ? "This domain is already verified." : "No verification was prepared for this domain.",
      "code",
    );
  }
  if (pending.expireAt !== null && pending.expireAt <= Date.now()) {
    throw new ApiError(400, "verification_expired", "The code has expired. Ask for a new one.", "code");
  }
  // The attempt counts (and is told) even when the code is wrong.
  store.write(() => {
    pending.attempts += 1;
    domain.updatedAt = Date.now();
  });
  if (given.trim() !== code) {
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  }
  setVerified(store, domain, true);
}

export function deleteDomain(store: Store, domain: OrganizationDomainRecord): void {
  store.write((state) => {
    state.organizationDomains = state.organizationDomains.filter((d) => d !== domain);
    // Pending suggestions go with it; invitations it made stay, as any invitation does.
    state.organizationSuggestions = state.organizationSuggestions.filter(
      (s) => s.domainId !== domain.id || s.status !== "pending",
    );
  });
}

/** A user's verified addresses on a domain. */
const verifiedOn = (user: UserRecord, domain: string) =>
  user.emails.filter((e) => e.verified && domainOfEmail(e.email) === domain);

/**
 * Hands out what the instance's automatic domains owe: for every user with a
 * verified address on one, an invitation or a suggestion, unless they are a
 * member, already have one pending or accepted, or had one the domain made
 * revoked since its mode was set (an admin's revocation stands). Runs after
 * every change to the store, so a user who signs up, verifies an address, or
 * is created through the Backend API is enrolled at once, however it happened.
 */
export function enrollByDomains(store: Store): void {
  const domains = store.state.organizationDomains.filter(
    (d) =>
      isVerified(d) && (d.enrollmentMode === "automatic_invitation" || d.enrollmentMode === "automatic_suggestion"),
  );
  if (domains.length === 0 || !store.state.instance.organizationSettings.domainsEnabled) return;
  for (const domain of domains) {
    const org = store.org(domain.orgId);
    if (!org) continue;
    for (const { id } of store.state.users) {
      const user = store.user(id);
      if (!user) continue;
      const addresses = verifiedOn(user, domain.name);
      if (addresses.length === 0 || store.membership(org.id, user.id)) continue;
      if (domain.enrollmentMode === "automatic_invitation") inviteByDomain(store, org, domain, addresses[0]!.email);
      else suggestByDomain(store, domain, user);
    }
  }
}

function inviteByDomain(store: Store, org: OrgRecord, domain: OrganizationDomainRecord, email: string): void {
  const blocked = store.state.invitations.some(
    (i) =>
      i.orgId === org.id &&
      i.email === email &&
      (i.status !== "revoked" || (i.domainId === domain.id && i.updatedAt >= domain.enrollmentSince)),
  );
  if (blocked) return;
  // No email: Clerk's automatic invitations wait in the person's organization switcher.
  store.write(() => {
    const invitation = createInvitation(store, org, {
      email,
      role: store.state.instance.organizationSettings.domainsDefaultRole,
      inviterUserId: null,
      redirectUrl: null,
      link: null,
    });
    invitation.domainId = domain.id;
  });
}

function suggestByDomain(store: Store, domain: OrganizationDomainRecord, user: UserRecord): void {
  const known = store.state.organizationSuggestions.some((s) => s.orgId === domain.orgId && s.userId === user.id);
  if (known) return;
  const t = Date.now();
  store.write((state) => {
    state.organizationSuggestions.push({
      id: newId("orgsug"),
      orgId: domain.orgId,
      domainId: domain.id,
      userId: user.id,
      status: "pending",
      createdAt: t,
      updatedAt: t,
    });
  });
}

/** A suggestion accepted: a pending request to join, for an admin to accept or reject. */
export function acceptSuggestion(store: Store, suggestion: OrganizationSuggestionRecord): void {
  if (suggestion.status === "accepted") {
    throw new ApiError(400, "organization_suggestion_already_accepted", "This suggestion is already accepted.");
  }
  const t = Date.now();
  store.write((state) => {
    suggestion.status = "accepted";
    suggestion.updatedAt = t;
    const pending = state.membershipRequests.some(
      (r) => r.orgId === suggestion.orgId && r.userId === suggestion.userId && r.status === "pending",
    );
    if (!pending) {
      state.membershipRequests.push({
        id: newId("orgmbr"),
        orgId: suggestion.orgId,
        userId: suggestion.userId,
        status: "pending",
        createdAt: t,
        updatedAt: t,
      });
    }
  });
}
