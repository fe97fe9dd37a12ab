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
  /** Banned through the Backend API: cannot sign in until unbanned (absent in older state files: not banned). */
  banned?: boolean;
  /** When the user was locked (by the Backend API or by too many failed attempts), or null. */
  lockedAt?: number | null;
  /** Failed password and code attempts since the last success or unlock (Clerk's account lockout). */
  failedAttempts?: number;
  /** Marked compromised through the Backend API: a password sign-in is refused until it changes. */
  passwordCompromised?: boolean;
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
  /** The instance's allow-list and block-list (`/v1/allowlist_identifiers`, `/v1/blocklist_identifiers`). */
  allowlist: IdentifierRecord[];
  blocklist: IdentifierRecord[];
  /** The instance's restrictions (`PATCH /v1/instance/restrictions`). */
  restrictions: RestrictionsRecord;
};

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

export type ImageRecord = { id: string; name: string; contentType: string; size: number; createdAt: number };
