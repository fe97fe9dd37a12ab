/** The emulator's whole state: plain records, serialisable as one JSON file. */
export type Metadata = Record<string, unknown>;

export type EmailRecord = {
  id: string;
  email: string;
  verified: boolean;
  createdAt: number;
  updatedAt: number;
};

export type UserRecord = {
  id: string;
  firstName: string | null;
  lastName: string | null;
  /** The primary address and its id (kept equal to the primary entry of `emails`). */
  email: string;
  emailId: string;
  /** Every address, the primary one included; an unverified one cannot sign in. */
  emails: EmailRecord[];
  passwordHash: string | null;
  passwordUpdatedAt: number | null;
  /** The profile image's id in the image folder, or null. */
  imageId: string | null;
  publicMetadata: Metadata;
  privateMetadata: Metadata;
  unsafeMetadata: Metadata;
  /** The user's id in the app's own systems (`external_id`), unique in the instance. */
  externalId: string | null;
  /** The user's locale (`locale`, BCP 47), or null. */
  locale: string | null;
  /** When the user accepted the legal terms (`legal_accepted_at`). */
  legalAcceptedAt: number | null;
  createdAt: number;
  updatedAt: number;
  lastSignInAt: number | null;
};

export type OrgRecord = {
  id: string;
  name: string;
  /** null when the instance has organization slugs turned off. */
  slug: string | null;
  createdBy: string | null;
  /** The logo's id in the image folder, or null. */
  imageId: string | null;
  publicMetadata: Metadata;
  privateMetadata: Metadata;
  maxAllowedMemberships: number;
  createdAt: number;
  updatedAt: number;
};

export type Role = "org:admin" | "org:member";

export type MembershipRecord = {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
  createdAt: number;
  updatedAt: number;
};

export type InvitationRecord = {
  id: string;
  /** null: an invitation to the application itself (the Backend API's `/v1/invitations`), which signs up only. */
  orgId: string | null;
  email: string;
  role: Role;
  status: "pending" | "accepted" | "revoked";
  inviterUserId: string | null;
  /** The secret the invitation link carries (`__clerk_ticket`). */
  ticket: string;
  /** Where the link lands; null means the instance's sign-up or sign-in page. */
  redirectUrl: string | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
  /** The verified domain that made it (Clerk's automatic invitations), if one did. */
  domainId?: string;
};

/** A one-time sign-in link for a user, made with the Backend API (`/v1/sign_in_tokens`). */
export type SignInTokenRecord = {
  id: string;
  userId: string;
  ticket: string;
  status: "pending" | "accepted" | "revoked";
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
};

export type SessionStatus = "active" | "ended" | "removed" | "revoked" | "expired";

/** The device a session was made on, as Clerk shows it in the active devices list. */
export type SessionActivity = {
  browserName: string | null;
  browserVersion: string | null;
  deviceType: string | null;
  isMobile: boolean;
  ipAddress: string | null;
};

export type SessionRecord = {
  id: string;
  clientId: string;
  userId: string;
  status: SessionStatus;
  activity?: SessionActivity;
  lastActiveOrganizationId: string | null;
  createdAt: number;
  updatedAt: number;
  lastActiveAt: number;
  expireAt: number;
};

export type SignInRecord = {
  id: string;
  identifier: string | null;
  userId: string | null;
  status: "needs_identifier" | "needs_first_factor" | "complete";
  createdSessionId: string | null;
  firstFactorStrategy: string | null;
  firstFactorStatus: "unverified" | "verified" | "failed" | null;
  createdAt: number;
};

export type SignUpRecord = {
  id: string;
  email: string | null;
  passwordHash: string | null;
  firstName: string | null;
  lastName: string | null;
  emailVerification: "none" | "unverified" | "verified";
  /** The invitation ticket the sign-up started with: it verifies the email and is redeemed on completion. */
  ticket?: string | null;
  status: "missing_requirements" | "complete";
  createdUserId: string | null;
  createdSessionId: string | null;
  createdAt: number;
};

export type ClientRecord = {
  id: string;
  sessionIds: string[];
  lastActiveSessionId: string | null;
  signIn: SignInRecord | null;
  signUp: SignUpRecord | null;
  createdAt: number;
  updatedAt: number;
};

export type HandshakeRecord = { nonce: string; directives: string[]; expiresAt: number };

export type State = {
  version: 1;
  users: UserRecord[];
  organizations: OrgRecord[];
  memberships: MembershipRecord[];
  invitations: InvitationRecord[];
  signInTokens: SignInTokenRecord[];
  sessions: SessionRecord[];
  clients: ClientRecord[];
  handshakes: HandshakeRecord[];
  /** Uploaded profile images and logos; their bytes are files beside the state file. */
  images: ImageRecord[];
  /** Organizations' verified domains, and what they hand out (emulator/organization-domains.ts). */
  organizationDomains: OrganizationDomainRecord[];
  organizationSuggestions: OrganizationSuggestionRecord[];
  /** Requests to join an organization (a suggestion accepted), for an admin to accept or reject. */
  membershipRequests: MembershipRequestRecord[];
  /** The instance's own settings, as the Backend API's `/v1/instance…` endpoints change them (emulator/instance.ts). */
  instance: InstanceRecord;
  waitlistEntries: WaitlistEntryRecord[];
};

export type DomainEnrollmentMode =
  "manual_invitation" | "automatic_invitation" | "automatic_suggestion" | "enterprise_sso";

/** An organization's domain: verified by affiliation (an email code), its ownership only ever marked by the Backend API. */
export type OrganizationDomainRecord = {
  id: string;
  orgId: string;
  /** Lowercase, e.g. `example.com`. */
  name: string;
  enrollmentMode: DomainEnrollmentMode;
  /** Since when the enrollment mode holds: invitations revoked after it are not made again. */
  enrollmentSince: number;
  affiliationEmail: string | null;
  affiliation: {
    status: "unverified" | "verified";
    attempts: number;
    expireAt: number | null;
    verifiedAt: number | null;
  } | null;
  ownershipVerifiedAt: number | null;
  createdAt: number;
  updatedAt: number;
};

/** A suggestion to a user to ask to join an organization whose domain their verified address is on. */
export type OrganizationSuggestionRecord = {
  id: string;
  orgId: string;
  domainId: string;
  userId: string;
  status: "pending" | "accepted";
  createdAt: number;
  updatedAt: number;
};

export type MembershipRequestRecord = {
  id: string;
  orgId: string;
  userId: string;
  status: "pending" | "accepted" | "rejected";
  createdAt: number;
  updatedAt: number;
};

export type WaitlistEntryRecord = {
  id: string;
  email: string;
  status: "pending" | "invited" | "rejected" | "completed";
  /** The invitation to the application an `invite` made. */
  invitationId: string | null;
  createdAt: number;
  updatedAt: number;
};

/** A satellite domain (`/v1/domains`): the handshake may send browsers back to it. */
export type SatelliteDomainRecord = {
  id: string;
  name: string;
  proxyUrl: string | null;
  isSecondary: boolean;
  createdAt: number;
};

export type RedirectUrlRecord = { id: string; url: string; createdAt: number; updatedAt: number };

/** A template changed from Clerk's default (`PUT /v1/templates/:type/:slug`, `toggle_delivery`). */
export type TemplateOverride = {
  name?: string;
  subject?: string | null;
  markup?: string;
  body?: string;
  fromEmailName?: string;
  replyToEmailName?: string;
  deliveredByClerk?: boolean;
  updatedAt: number;
};

export type InstanceRecord = {
  /** `PATCH /v1/instance`. */
  settings: {
    testMode: boolean;
    hibp: boolean;
    supportEmail: string | null;
    clerkJsVersion: string | null;
    developmentOrigin: string | null;
    allowedOrigins: string[];
    urlBasedSessionSyncing: boolean;
    preferredSignInStrategy: "password" | "otp" | "";
  };
  organizationSettings: {
    enabled: boolean;
    maxAllowedMemberships: number;
    adminDeleteEnabled: boolean;
    domainsEnabled: boolean;
    domainsEnrollmentModes: DomainEnrollmentMode[];
    creatorRole: Role;
    domainsDefaultRole: Role;
  };
  blockedCountryCodes: string[];
  protect: { rulesEnabled: boolean; specterEnabled: boolean };
  oauthApplicationSettings: Record<string, unknown>;
  satelliteDomains: SatelliteDomainRecord[];
  redirectUrls: RedirectUrlRecord[];
  /** Keyed `email/verification_code`, `sms/…`. */
  templates: Record<string, TemplateOverride>;
  /** Whether the instance has a Svix app (`POST /v1/webhooks/svix`): without one, no webhook is sent. */
  svixApp: boolean;
  /** The production domain's home URL, as `POST /v1/instance/change_domain` last set it. */
  homeUrl: string | null;
};

export type ImageRecord = { id: string; name: string; contentType: string; size: number; createdAt: number };
