import type {
  ClientRecord,
  InvitationRecord,
  MembershipRecord,
  OrgRecord,
  SessionRecord,
  SignInRecord,
  SignInTokenRecord,
  SignUpRecord,
  Store,
  UserRecord,
} from "./store";

/**
 * Clerk's JSON shapes (Frontend and Backend API share most of them), as
 * documented by Clerk's public type definitions. Timestamps are epoch ms.
 * Image URLs are empty: nothing may reach beyond loopback.
 */
const ROLE_NAMES: Record<string, string> = { "org:admin": "Admin", "org:member": "Member" };
const ADMIN_PERMISSIONS = [
  "org:sys_profile:manage",
  "org:sys_profile:delete",
  "org:sys_memberships:read",
  "org:sys_memberships:manage",
  "org:sys_domains:read",
  "org:sys_domains:manage",
];
const MEMBER_PERMISSIONS = ["org:sys_memberships:read"];

export function permissionsFor(role: string): string[] {
  return role === "org:admin" ? ADMIN_PERMISSIONS : MEMBER_PERMISSIONS;
}

export function fullName(user: UserRecord): string | null {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ").trim();
  return name || null;
}

export function verificationJSON(status: string, strategy: string, extra: Record<string, unknown> = {}) {
  return {
    object: "verification",
    id: `ver_${strategy}`,
    status,
    strategy,
    attempts: status === "verified" ? 1 : 0,
    expire_at: Date.now() + 10 * 60_000,
    verified_at_client: null,
    error: null,
    ...extra,
  };
}

export function emailAddressJSON(user: UserRecord) {
  return {
    object: "email_address",
    id: user.emailId,
    email_address: user.email,
    reserved: false,
    verification: verificationJSON("verified", "email_code"),
    linked_to: [],
    matches_sso_connection: false,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

export function publicUserDataJSON(user: UserRecord) {
  return {
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: "",
    has_image: false,
    identifier: user.email,
    user_id: user.id,
    profile_image_url: "",
  };
}

export function organizationJSON(store: Store, org: OrgRecord) {
  return {
    object: "organization",
    id: org.id,
    name: org.name,
    slug: org.slug,
    image_url: "",
    logo_url: null,
    has_image: false,
    created_by: org.createdBy,
    public_metadata: {},
    private_metadata: {},
    members_count: store.membershipsOfOrg(org.id).length,
    pending_invitations_count: store.state.invitations.filter((i) => i.orgId === org.id && i.status === "pending")
      .length,
    max_allowed_memberships: 0,
    admin_delete_enabled: true,
    created_at: org.createdAt,
    updated_at: org.updatedAt,
  };
}

export function membershipJSON(store: Store, m: MembershipRecord) {
  const org = store.org(m.orgId);
  const user = store.user(m.userId);
  return {
    object: "organization_membership",
    id: m.id,
    role: m.role,
    role_name: ROLE_NAMES[m.role] ?? m.role,
    permissions: permissionsFor(m.role),
    public_metadata: {},
    private_metadata: {},
    organization: org ? organizationJSON(store, org) : null,
    public_user_data: user ? publicUserDataJSON(user) : null,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

/**
 * An invitation as the Backend API shows it: `url` is the link that redeems
 * it. The Frontend API passes null, since its readers need no secret.
 */
export function invitationJSON(store: Store, inv: InvitationRecord, url: string | null) {
  const org = store.org(inv.orgId);
  return {
    object: "organization_invitation",
    id: inv.id,
    email_address: inv.email,
    organization_id: inv.orgId,
    role: inv.role,
    role_name: ROLE_NAMES[inv.role] ?? inv.role,
    status: inv.status,
    public_metadata: {},
    private_metadata: {},
    public_organization_data: org
      ? { id: org.id, name: org.name, slug: org.slug, image_url: "", has_image: false }
      : null,
    url,
    expires_at: inv.expiresAt,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
  };
}

export function signInTokenJSON(record: SignInTokenRecord, url: string) {
  return {
    object: "sign_in_token",
    id: record.id,
    user_id: record.userId,
    token: record.ticket,
    status: record.status,
    url,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export function userJSON(store: Store, user: UserRecord, { withMemberships = true } = {}) {
  return {
    object: "user",
    id: user.id,
    external_id: null,
    username: null,
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: "",
    profile_image_url: "",
    has_image: false,
    profile_image_id: "",
    primary_email_address_id: user.emailId,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    email_addresses: [emailAddressJSON(user)],
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    enterprise_accounts: [],
    saml_accounts: [],
    passkeys: [],
    organization_memberships: withMemberships
      ? store.membershipsOfUser(user.id).map((m) => membershipJSON(store, m))
      : [],
    password_enabled: Boolean(user.passwordHash),
    totp_enabled: false,
    backup_code_enabled: false,
    two_factor_enabled: false,
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    banned: false,
    locked: false,
    last_sign_in_at: user.lastSignInAt,
    last_active_at: user.lastSignInAt,
    create_organization_enabled: true,
    create_organizations_limit: null,
    delete_self_enabled: true,
    legal_accepted_at: null,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

export function sessionJSON(store: Store, session: SessionRecord, lastActiveToken: string | null) {
  const user = store.user(session.userId);
  return {
    object: "session",
    id: session.id,
    client_id: session.clientId,
    user_id: session.userId,
    status: session.status,
    factor_verification_age: [0, -1],
    expire_at: session.expireAt,
    abandon_at: session.expireAt,
    last_active_at: session.lastActiveAt,
    last_active_organization_id: session.lastActiveOrganizationId,
    last_active_token: lastActiveToken ? { object: "token", jwt: lastActiveToken } : null,
    actor: null,
    tasks: null,
    user: user ? userJSON(store, user) : null,
    public_user_data: user ? publicUserDataJSON(user) : null,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}

export function signInJSON(store: Store, signIn: SignInRecord) {
  const user = signIn.userId ? store.user(signIn.userId) : null;
  const factors = user
    ? [
        { strategy: "password" },
        { strategy: "email_code", safe_identifier: user.email, email_address_id: user.emailId, primary: true },
      ]
    : [];
  return {
    object: "sign_in_attempt",
    id: signIn.id,
    status: signIn.status,
    identifier: signIn.identifier,
    supported_identifiers: ["email_address"],
    supported_first_factors: factors,
    supported_second_factors: null,
    first_factor_verification: signIn.firstFactorStrategy
      ? verificationJSON(signIn.firstFactorStatus ?? "unverified", signIn.firstFactorStrategy)
      : null,
    second_factor_verification: null,
    user_data: user ? { first_name: user.firstName, last_name: user.lastName, image_url: "", has_image: false } : null,
    created_session_id: signIn.createdSessionId,
    abandon_at: signIn.createdAt + 24 * 3_600_000,
  };
}

export function signUpJSON(signUp: SignUpRecord) {
  const missing: string[] = [];
  if (!signUp.email) missing.push("email_address");
  if (!signUp.passwordHash) missing.push("password");
  const unverified = signUp.email && signUp.emailVerification !== "verified" ? ["email_address"] : [];
  const emailVerification =
    signUp.emailVerification === "none"
      ? null
      : {
          ...verificationJSON(signUp.emailVerification, signUp.ticket ? "ticket" : "email_code"),
          next_action: signUp.emailVerification === "verified" ? "" : "needs_attempt",
          supported_strategies: ["email_code"],
        };
  return {
    object: "sign_up_attempt",
    id: signUp.id,
    status: signUp.status,
    required_fields: ["email_address", "password"],
    optional_fields: ["first_name", "last_name"],
    missing_fields: missing,
    unverified_fields: unverified,
    verifications: {
      email_address: emailVerification,
      phone_number: null,
      web3_wallet: null,
      external_account: null,
    },
    username: null,
    email_address: signUp.email,
    phone_number: null,
    web3_wallet: null,
    first_name: signUp.firstName,
    last_name: signUp.lastName,
    has_password: Boolean(signUp.passwordHash),
    unsafe_metadata: {},
    public_metadata: {},
    custom_action: false,
    external_id: null,
    created_session_id: signUp.createdSessionId,
    created_user_id: signUp.createdUserId,
    abandon_at: signUp.createdAt + 24 * 3_600_000,
    legal_accepted_at: null,
    locale: null,
    external_account_strategy: null,
    external_account: null,
  };
}

/** `captchaBypass`: the request carried a testing token (`__clerk_testing_token`), as Clerk's test helpers send. */
export function clientJSON(
  store: Store,
  client: ClientRecord,
  tokenFor: (s: SessionRecord) => string | null,
  captchaBypass = false,
) {
  const sessions = store.activeSessions(client);
  return {
    object: "client",
    id: client.id,
    sessions: sessions.map((s) => sessionJSON(store, s, tokenFor(s))),
    sign_in: client.signIn ? signInJSON(store, client.signIn) : null,
    sign_up: client.signUp ? signUpJSON(client.signUp) : null,
    last_active_session_id: sessions.some((s) => s.id === client.lastActiveSessionId)
      ? client.lastActiveSessionId
      : null,
    last_authentication_strategy: null,
    cookie_expires_at: null,
    captcha_bypass: captchaBypass,
    created_at: client.createdAt,
    updated_at: client.updatedAt,
  };
}
