/** The emulator's whole state: plain records, serialisable as one JSON file. */
export type Metadata = Record<string, unknown>;

export type EmailRecord = {
  id: string;
  email: string;
  verified: boolean;
  createdAt: number;
  updatedAt: number;
};

export type Verifier = "phone_code" | "admin";

/** A phone number (E.164), verified by an SMS code or by the Backend API. */
export type PhoneRecord = {
  id: string;
  phone: string;
  verified: boolean;
  /** How it was verified: a texted code, or the Backend API's say-so (Clerk's `admin` strategy). */
  verifiedBy?: Verifier;
  /** Texted codes to it are a second factor (verified numbers only); absent in states older than SMS MFA. */
  reservedForSecondFactor?: boolean;
  /** The reserved number a sign-in texts first; one at most per user. */
  defaultSecondFactor?: boolean;
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
  /** The username (lowercase, unique in the instance), or null. */
  username: string | null;
  /** Every phone number, the primary one included; an unverified one cannot sign in. */
  phones: PhoneRecord[];
  /** The primary phone number's id, or null. */
  phoneId: string | null;
  /** Banned through the Backend API: cannot sign in until unbanned (absent in older state files: not banned). */
  banned?: boolean;
  /** When the user was locked (by the Backend API or by too many failed attempts), or null. */
  lockedAt?: number | null;
  /** Failed password and code attempts since the last success or unlock (Clerk's account lockout). */
  failedAttempts?: number;
  /** Marked compromised through the Backend API: a password sign-in is refused until it changes. */
  passwordCompromised?: boolean;
  /** The Backend API's `bypass_client_trust`: a password sign-in on a new browser is never held for client trust. */
  bypassClientTrust?: boolean;
  /** Multi-factor authentication as the user's JSON shows it (domain/mfa.ts); absent in older state files. */
  mfa?: UserMfaFlags;
};

/** What the user's JSON says of their second factors; the secrets themselves are in `State.mfaSecrets`. */
export type UserMfaFlags = {
  totpEnabled: boolean;
  backupCodeEnabled: boolean;
  /** A second factor that is not only backup codes: signing in asks for it. */
  twoFactorEnabled: boolean;
  enabledAt: number | null;
  disabledAt: number | null;
};

/** A user's TOTP secret and backup codes (kept apart so that using a backup code is no `user.updated`). */
export type MfaSecretsRecord = {
  userId: string;
  /** Base32, as authenticator apps take it; `verified` once a code from it was checked. */
  totp: { id: string; secret: string; verified: boolean; createdAt: number; updatedAt: number } | null;
  /** The backup codes still unused. */
  backupCodes: { id: string; codes: string[]; createdAt: number; updatedAt: number } | null;
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

/** A role's key: Clerk's default `org:admin` and `org:member`, or a custom role's (`org:<name>`); see RoleRecord. */
export type Role = string;

export type MembershipRecord = {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
  /** Set with the Backend API (`…/memberships/:userId/metadata`); absent in older state files. */
  publicMetadata?: Metadata;
  privateMetadata?: Metadata;
  createdAt: number;
  updatedAt: number;
};

/** An instance's organization role (Clerk's `/v1/organization_roles`); `permissionIds` name system and custom permissions. */
export type RoleRecord = {
  id: string;
  key: string;
  name: string;
  description: string | null;
  permissionIds: string[];
  createdAt: number;
  updatedAt: number;
};

/** A custom organization permission (`org:<feature>:<action>`); Clerk's system ones (`org:sys_…`) are built in (domain/roles.ts). */
export type PermissionRecord = {
  id: string;
  key: string;
  name: string;
  description: string;
  createdAt: number;
  updatedAt: number;
};

/** Someone asking to join an organization (Clerk makes these from verified domains in "request" mode). */
export type MembershipRequestRecord = {
  id: string;
  orgId: string;
  userId: string;
  status: "pending" | "accepted" | "rejected";
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
  /** Who is impersonating the user (an actor token's `actor`, at least `sub`); absent or null: nobody. */
  actor?: Metadata | null;
  /** When the person last verified a first and a second factor on this session (`fva`); absent in older state files. */
  factorsVerifiedAt?: { first: number; second: number | null };
  /** A reverification in progress or done (`/v1/client/sessions/:id/verify`). */
  verification?: SessionVerificationRecord | null;
  /** Begun while the user's password was marked compromised: the session's `reset-password` task (domain/session-tasks.ts). */
  beganCompromised?: boolean;
};

export type FactorStatus = "unverified" | "verified" | "failed";

export type SessionVerificationRecord = {
  id: string;
  level: "first_factor" | "second_factor" | "multi_factor";
  status: "needs_first_factor" | "needs_second_factor" | "complete";
  firstFactor: { strategy: string; status: FactorStatus } | null;
  secondFactor: { strategy: string; status: FactorStatus } | null;
  createdAt: number;
};

export type SignInRecord = {
  id: string;
  identifier: string | null;
  userId: string | null;
  status:
    | "needs_identifier"
    | "needs_first_factor"
    | "needs_second_factor"
    | "needs_client_trust"
    | "needs_new_password"
    | "complete";
  createdSessionId: string | null;
  /**
   * Whether the person has had a session on this client before (`known`) or not (`new`), once the
   * identifier names them (`pending` before); absent in older state files. Client trust (domain/client-trust.ts).
   */
  clientTrustState?: "pending" | "new" | "known";
  firstFactorStrategy: string | null;
  firstFactorStatus: "unverified" | "verified" | "failed" | "expired" | null;
  /** The WebAuthn request options (JSON, its challenge inside) a `passkey` first factor was prepared with. */
  passkeyNonce?: string | null;
  /** The second factor asked for after the first (domain/mfa.ts); absent in older state files. */
  secondFactor?: { strategy: string; status: FactorStatus } | null;
  /** An OAuth first factor (`oauth_google`…): the provider's authorize URL the browser is sent to. */
  externalVerificationRedirectUrl?: string | null;
  createdAt: number;
};

export type SignUpRecord = {
  id: string;
  email: string | null;
  passwordHash: string | null;
  firstName: string | null;
  lastName: string | null;
  emailVerification: "none" | "unverified" | "verified" | "expired";
  /** How the address is being verified: a code (the default) or an emailed link. */
  emailVerificationStrategy?: "email_code" | "email_link";
  /** The invitation ticket the sign-up started with: it verifies the email and is redeemed on completion. */
  ticket?: string | null;
  /** The username and phone number (E.164) asked for, and whether the phone's SMS code was given. */
  username?: string | null;
  phone?: string | null;
  phoneVerification?: "none" | "unverified" | "verified";
  status: "missing_requirements" | "complete";
  createdUserId: string | null;
  createdSessionId: string | null;
  createdAt: number;
  /** Set through the Backend API (`PATCH /v1/sign_ups/:id`); the external id is copied to the user made. */
  externalId?: string | null;
  customAction?: boolean;
  /** When the sign-up accepted the legal terms (`legal_accepted`), which the user made keeps. */
  legalAcceptedAt?: number | null;
  /** The sign-up's `unsafe_metadata` (clerk-js's `<SignUp unsafeMetadata>`), which the user made keeps. */
  unsafeMetadata?: Metadata;
  /** A sign-up through a social connection: its strategy and the provider's authorize URL, unverified. */
  externalAccount?: { strategy: string; redirectUrl: string } | null;
};

export type ClientRecord = {
  id: string;
  sessionIds: string[];
  lastActiveSessionId: string | null;
  signIn: SignInRecord | null;
  signUp: SignUpRecord | null;
  /** The first factor of the client's last completed sign-in (`password`, `email_code`, `oauth_google`…). */
  lastAuthenticationStrategy?: string | null;
  createdAt: number;
  updatedAt: number;
};

/**
 * A link Clerk emailed (strategy `email_link`): opening it (`GET /v1/verify?token=…`)
 * verifies the address for a sign-in, a sign-up or the signed-in person's new address.
 */
export type EmailLinkRecord = {
  token: string;
  flow: "sign_in" | "sign_up" | "email_address";
  /** The client whose sign-in or sign-up asked for the link (null for a profile's address). */
  clientId: string | null;
  /** The sign-in's, sign-up's or email address's id. */
  attemptId: string;
  userId: string | null;
  emailAddressId: string | null;
  /** The address the link was sent to: it verifies that address only. */
  address: string;
  /** Where the link lands once opened (an allowed origin), or null for the Frontend API's own page. */
  redirectUrl: string | null;
  expiresAt: number;
  usedAt: number | null;
};

/** A passkey (a WebAuthn credential) of a user; unverified until its registration is attempted. */
export type PasskeyRecord = {
  id: string;
  userId: string;
  name: string;
  /** The credential's id (base64url), its public key (a JWK) and COSE algorithm, once registered. */
  credentialId: string | null;
  publicKey: Record<string, unknown> | null;
  alg: number | null;
  signCount: number;
  /** The registration's challenge (base64url) while it is pending. */
  challenge: string | null;
  verified: boolean;
  lastUsedAt: number | null;
  createdAt: number;
  updatedAt: number;
};

export type HandshakeRecord = { nonce: string; directives: string[]; expiresAt: number };

/**
 * A development instance's browser (`POST /v1/dev_browser`): clerk-js sends its id with every
 * Frontend API call (`__clerk_db_jwt`), and the client it names is that browser's, where a
 * production instance reads the `__client` cookie.
 */
export type DevBrowserRecord = { id: string; clientId: string | null; createdAt: number; updatedAt: number };

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
  /** A development instance's browsers; absent in older state files. */
  devBrowsers: DevBrowserRecord[];
  /** Uploaded profile images and logos; their bytes are files beside the state file. */
  images: ImageRecord[];
  /** JWT templates (domain/jwt-templates.ts) and impersonation links (domain/actor-tokens.ts). */
  jwtTemplates: JwtTemplateRecord[];
  actorTokens: ActorTokenRecord[];
  /** The instance's organization roles and custom permissions; absent in older state files (Clerk's defaults then). */
  roles: RoleRecord[];
  permissions: PermissionRecord[];
  membershipRequests: MembershipRequestRecord[];
  /** Emailed sign-in and verification links. */
  emailLinks: EmailLinkRecord[];
  /** Users' passkeys. */
  passkeys: PasskeyRecord[];
  /** TOTP secrets and backup codes, per user (domain/mfa.ts). */
  mfaSecrets: MfaSecretsRecord[];
  /** The instance's allow-list and block-list (`/v1/allowlist_identifiers`, `/v1/blocklist_identifiers`). */
  allowlist: IdentifierRecord[];
  blocklist: IdentifierRecord[];
  /** The instance's restrictions (`PATCH /v1/instance/restrictions`). */
  restrictions: RestrictionsRecord;
  /** Organizations' verified domains, and what they hand out (domain/organization-domains.ts). */
  organizationDomains: OrganizationDomainRecord[];
  organizationSuggestions: OrganizationSuggestionRecord[];
  /** The instance's own settings, as the Backend API's `/v1/instance…` endpoints change them (state/instance.ts). */
  instance: InstanceRecord;
  waitlistEntries: WaitlistEntryRecord[];
};

/** A JWT template (`/v1/jwt_templates`): claims with Clerk's shortcodes, minted for a session by name. */
export type JwtTemplateRecord = {
  id: string;
  name: string;
  claims: Metadata;
  lifetime: number;
  allowedClockSkew: number;
  /** A custom signing key and algorithm (HS256 with a shared secret, as Supabase's); null: the instance's key, RS256. */
  customKey: { algorithm: string; key: string } | null;
  createdAt: number;
  updatedAt: number;
};

/** An impersonation link (`/v1/actor_tokens`): signs `actor` in as the user, once. */
export type ActorTokenRecord = {
  id: string;
  userId: string;
  actor: Metadata;
  ticket: string;
  status: "pending" | "accepted" | "revoked";
  expiresAt: number;
  sessionMaxDurationMs: number;
  createdAt: number;
  updatedAt: number;
};

export type ImageRecord = { id: string; name: string; contentType: string; size: number; createdAt: number };

/** An email address (or `*@domain` / a domain, on the block-list) on the allow-list or block-list. */
export type IdentifierRecord = {
  id: string;
  identifier: string;
  /** The invitation the allow-list sent the address (`notify`), if any. */
  invitationId: string | null;
  createdAt: number;
  updatedAt: number;
};

export type RestrictionsRecord = {
  allowlist: boolean;
  blocklist: boolean;
  allowlistBlocklistDisabledOnSignIn: boolean;
  blockEmailSubaddresses: boolean;
  blockDisposableEmailDomains: boolean;
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

/**
 * A code sent by the Backend API's `prepare_verification` on an email address or a phone number, checked by
 * its `attempt_verification` (domain/code-verifications.ts).
 */
export type CodeVerificationRecord = {
  id: string;
  /** The email address's or phone number's id. */
  identificationId: string;
  status: "unverified" | "verified" | "failed" | "expired";
  attempts: number;
  expireAt: number;
};

/** A multi-domain sync's one-time token (`/v1/client/sync` makes it, `/v1/client/link` takes it). */
export type LinkTokenRecord = { clientId: string; origin: string; redirectUrl: string; expiresAt: number };

/**
 * What the emulator keeps in memory only, never in the state file (a restart forgets it, as short-lived
 * secrets should be): the store holds it beside the state, `store.write` changes it, and `reset` empties it.
 */
export type MemoryState = {
  /** Testing tokens (`POST /v1/testing_tokens`) and when each expires. */
  testingTokens: Map<string, number>;
  /** The Backend API's email address and phone number verifications, by id. */
  emailVerifications: Map<string, CodeVerificationRecord>;
  phoneVerifications: Map<string, CodeVerificationRecord>;
  /** Multi-domain sync tokens, by token. */
  linkTokens: Map<string, LinkTokenRecord>;
  /** The secrets of `svix_url`'s read-only webhook portals. */
  webhookPortalTokens: Set<string>;
};
