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

/** A custom organization permission (`org:<feature>:<action>`); Clerk's system ones (`org:sys_…`) are built in (emulator/roles.ts). */
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
  /** Set through the Backend API (`PATCH /v1/sign_ups/:id`); the external id is copied to the user made. */
  externalId?: string | null;
  customAction?: boolean;
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
  /** Absent in older state files: none (emulator/jwt-templates.ts). */
  jwtTemplates?: JwtTemplateRecord[];
  /** Absent in older state files: none (emulator/actor-tokens.ts). */
  actorTokens?: ActorTokenRecord[];
  /** The instance's organization roles and custom permissions; absent in older state files (Clerk's defaults then). */
  roles: RoleRecord[];
  permissions: PermissionRecord[];
  membershipRequests: MembershipRequestRecord[];
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
