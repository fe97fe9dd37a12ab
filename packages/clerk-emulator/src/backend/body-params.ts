import { ApiError } from "../domain/errors";
import { str, type Route } from "../http/routing";
import { INSTANCE_BODY_FIELDS } from "./instance-params";
import { unknownParameter } from "./query-params";

/**
 * The one rule for the Backend API's request bodies, beside query-params.ts'
 * for query strings: every write the emulator answers (POST, PATCH, PUT,
 * DELETE) names here each body field Clerk's OpenAPI description lists for it
 * (tests/unit/body-fields.test.ts compares the two), with what the
 * emulator does with it:
 *
 * - `kept`: stored, answered, and read where it matters;
 * - `flag`: an instruction it follows (a check to skip, a notice it never
 *   needs to send);
 * - refused, with the reason.
 *
 * A field refused, or not listed at all, is Clerk's 422 `form_param_unknown`
 * naming it, which is what Clerk answers for a field of a feature the instance
 * has turned off (this instance has no web3 wallets and no SMS second factor);
 * a refused flag sent as `false` asks for nothing and passes. The
 * request is refused before its endpoint runs, so nothing is created or
 * changed, and a write with no entry cannot be registered: nothing is ever
 * silently dropped.
 */
export type FieldRule = "kept" | "flag" | { refused: string };

const NO_SMS_SECOND_FACTOR = {
  refused: "The emulator's phone numbers are never a second factor (its GUIDE.md); `false` passes.",
};
const NO_WALLETS = { refused: "The emulator's instance has no web3 wallets (its GUIDE.md)." };
const NO_DIGESTS = { refused: "The emulator cannot verify imported password digests: send password instead." };
const NO_PERMISSIONS = {
  refused: "The emulator keeps no per-user permissions: every user may delete themselves and create organizations.",
};

const COMMON_USER_FIELDS: Record<string, FieldRule> = {
  external_id: "kept",
  first_name: "kept",
  last_name: "kept",
  locale: "kept",
  username: "kept",
  password: "kept",
  password_digest: NO_DIGESTS,
  password_hasher: NO_DIGESTS,
  skip_password_checks: "flag",
  // domain/mfa.ts: a verified TOTP secret, and backup codes replacing any.
  totp_secret: "kept",
  backup_codes: "kept",
  public_metadata: "kept",
  private_metadata: "kept",
  unsafe_metadata: "kept",
  delete_self_enabled: NO_PERMISSIONS,
  create_organization_enabled: NO_PERMISSIONS,
  create_organizations_limit: NO_PERMISSIONS,
  legal_accepted_at: "kept",
  // The emulator has no legal requirements nor device trust to check.
  skip_legal_checks: "flag",
  bypass_client_trust: "flag",
  created_at: "kept",
};

/** `POST /v1/users`. */
export const USER_CREATE_FIELDS: Readonly<Record<string, FieldRule>> = {
  ...COMMON_USER_FIELDS,
  email_address: "kept",
  email_address_identification_status: "kept",
  phone_number: "kept",
  phone_number_identification_status: "kept",
  web3_wallet: NO_WALLETS,
  // The emulator never requires a password, nor anything but an email address, which every user has.
  skip_password_requirement: "flag",
  skip_user_requirement: "flag",
  banned: "kept",
  locked: "kept",
};

/** `PATCH /v1/users/:id`. */
export const USER_UPDATE_FIELDS: Readonly<Record<string, FieldRule>> = {
  ...COMMON_USER_FIELDS,
  primary_email_address_id: "kept",
  // No email is ever sent.
  notify_primary_email_address_changed: "flag",
  primary_phone_number_id: "kept",
  primary_web3_wallet_id: NO_WALLETS,
  profile_image_id: "kept",
  sign_out_of_other_sessions: "flag",
};

/** `PATCH /v1/users/:id/metadata`. */
export const USER_METADATA_FIELDS: Readonly<Record<string, FieldRule>> = {
  public_metadata: "kept",
  private_metadata: "kept",
  unsafe_metadata: "kept",
};

const NO_ROLE_SETS = {
  refused: "The emulator has no role sets: every organization offers every role of the instance (its GUIDE.md).",
};
/** Bans, locks, passwords, the profile image, email addresses and the instance's restrictions (this slice's modules). */
const USER_ACCESS_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  "POST /v1/users/:id/ban": {},
  "POST /v1/users/:id/unban": {},
  "POST /v1/users/ban": { user_ids: "kept" },
  "POST /v1/users/unban": { user_ids: "kept" },
  "POST /v1/users/:id/lock": {},
  "POST /v1/users/:id/unlock": {},
  "POST /v1/users/:id/verify_password": { password: "kept" },
  "POST /v1/users/:id/remove_password": { sign_out_of_other_sessions: "flag" },
  "POST /v1/users/:id/password/set_compromised": { revoke_all_sessions: "flag" },
  "POST /v1/users/:id/password/unset_compromised": {},
  "DELETE /v1/users/:id/trusted_devices/:deviceId": {},
  "POST /v1/users/:id/profile_image": { file: "kept" },
  "DELETE /v1/users/:id/profile_image": {},
  "DELETE /v1/users/:id/passkeys/:passkeyId": {},
  "PUT /v1/users/:id/metadata": USER_METADATA_FIELDS,
  "POST /v1/email_addresses": {
    user_id: "kept",
    email_address: "kept",
    verified: "kept",
    primary: "kept",
    // No email is ever sent but verification codes.
    notify_primary_email_address_changed: "flag",
  },
  "PATCH /v1/email_addresses/:id": { verified: "kept", primary: "kept", notify_primary_email_address_changed: "flag" },
  "DELETE /v1/email_addresses/:id": {},
  "POST /v1/email_addresses/:id/prepare_verification": {},
  "POST /v1/email_addresses/:id/attempt_verification": { verification_id: "kept", code: "kept" },
  "PUT /v1/users/:id/email_address": {
    email_address: "kept",
    identification_status: "kept",
    notify_primary_email_address_changed: "flag",
  },
  "POST /v1/allowlist_identifiers": { identifier: "kept", notify: "flag" },
  "DELETE /v1/allowlist_identifiers/:id": {},
  "POST /v1/blocklist_identifiers": { identifier: "kept" },
  "DELETE /v1/blocklist_identifiers/:id": {},
  "PATCH /v1/instance/restrictions": {
    allowlist: "kept",
    blocklist: "kept",
    allowlist_blocklist_disabled_on_sign_in: "kept",
    block_email_subaddresses: "kept",
    block_disposable_email_domains: "kept",
  },
};

const NO_INVITATION_METADATA = {
  refused: "The emulator keeps no metadata on invitations (Clerk copies it onto the user who accepts).",
};
const METADATA: Record<string, FieldRule> = { public_metadata: "kept", private_metadata: "kept" };

const JWT_TEMPLATE_FIELDS: Record<string, FieldRule> = {
  name: "kept",
  claims: "kept",
  lifetime: "kept",
  allowed_clock_skew: "kept",
  custom_signing_key: "kept",
  signing_algorithm: "kept",
  signing_key: "kept",
};

/** JWT templates, sessions made and refreshed, tokens, actor tokens, clients and sign-ups (backend/session-tokens.ts…). */
const SESSION_TOKEN_FIELDS: Record<string, Readonly<Record<string, FieldRule>>> = {
  "POST /v1/jwt_templates": JWT_TEMPLATE_FIELDS,
  "PATCH /v1/jwt_templates/:id": JWT_TEMPLATE_FIELDS,
  "DELETE /v1/jwt_templates/:id": {},
  "POST /v1/sessions": { user_id: "kept", active_organization_id: "kept" },
  "POST /v1/sessions/:id/tokens": { expires_in_seconds: "kept" },
  "POST /v1/sessions/:id/tokens/:template": { expires_in_seconds: "kept" },
  "POST /v1/sessions/:id/refresh": {
    expired_token: "kept",
    // Required, but the emulator issues no `__refresh` cookie to compare it with (GUIDE.md).
    refresh_token: "kept",
    request_origin: "kept",
    format: "kept",
    // The emulator has no bot or device checks to run on them.
    request_headers: "flag",
    request_originating_ip: "flag",
  },
  "POST /v1/actor_tokens": {
    user_id: "kept",
    actor: "kept",
    expires_in_seconds: "kept",
    session_max_duration_in_seconds: "kept",
  },
  "POST /v1/actor_tokens/:id/revoke": {},
  "POST /v1/clients/verify": { token: "kept" },
  "PATCH /v1/sign_ups/:id": { external_id: "kept", custom_action: "kept" },
};
/** An invitation to an organization: `POST /v1/organizations/:id/invitations`, and each of a bulk request's. */
export const ORGANIZATION_INVITATION_FIELDS: Readonly<Record<string, FieldRule>> = {
  email_address: "kept",
  role: "kept",
  inviter_user_id: "kept",
  redirect_url: "kept",
  expires_in_days: "kept",
  // `false`: no invitation email, so no `email.created` webhook (the link is in the answer's `url` all the same).
  notify: "flag",
  public_metadata: NO_INVITATION_METADATA,
  private_metadata: NO_INVITATION_METADATA,
};

/** An invitation to the application: `POST /v1/invitations`, and each of a bulk request's. */
export const INVITATION_FIELDS: Readonly<Record<string, FieldRule>> = {
  email_address: "kept",
  redirect_url: "kept",
  expires_in_days: "kept",
  ignore_existing: "flag",
  // `false`: no invitation email, so no `email.created` webhook. The template is always Clerk's `invitation`.
  notify: "flag",
  template_slug: "flag",
  public_metadata: NO_INVITATION_METADATA,
};

const ROLE_FIELDS: Record<string, FieldRule> = {
  name: "kept",
  key: "kept",
  description: "kept",
  permissions: "kept",
};
const PERMISSION_FIELDS: Record<string, FieldRule> = { name: "kept", key: "kept", description: "kept" };

/**
 * Every Backend API write the emulator answers (`METHOD pattern`), and the
 * body fields Clerk documents for it. An empty entry: Clerk documents no body.
 */
export const BACKEND_BODY_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  "POST /v1/users": USER_CREATE_FIELDS,
  "PATCH /v1/users/:id": USER_UPDATE_FIELDS,
  "PATCH /v1/users/:id/metadata": USER_METADATA_FIELDS,
  "DELETE /v1/users/:id": {},
  "POST /v1/users/:id/verify_totp": { code: "kept" },
  "DELETE /v1/users/:id/mfa": {},
  "DELETE /v1/users/:id/backup_code": {},
  "DELETE /v1/users/:id/totp": {},
  "POST /v1/organizations": {
    name: "kept",
    slug: "kept",
    created_by: "kept",
    ...METADATA,
    max_allowed_memberships: "kept",
    created_at: "kept",
    role_set_key: NO_ROLE_SETS,
  },
  "PATCH /v1/organizations/:id": {
    name: "kept",
    slug: "kept",
    ...METADATA,
    max_allowed_memberships: "kept",
    created_at: "kept",
    admin_delete_enabled: { refused: "The emulator always lets an organization's admins delete it." },
    role_set_key: NO_ROLE_SETS,
  },
  "PATCH /v1/organizations/:id/metadata": METADATA,
  "PUT /v1/organizations/:id/metadata": METADATA,
  "DELETE /v1/organizations/:id": {},
  "POST /v1/organizations/:id/memberships": {
    user_id: "kept",
    role: "kept",
    ...METADATA,
  },
  "PATCH /v1/organizations/:id/memberships/:userId": { role: "kept" },
  "DELETE /v1/organizations/:id/memberships/:userId": {},
  "PATCH /v1/organizations/:id/memberships/:userId/metadata": METADATA,
  // A multipart form (http/uploads.ts reads it): the image, and who is credited with it.
  "PUT /v1/organizations/:id/logo": { file: "kept", uploader_user_id: "kept" },
  "DELETE /v1/organizations/:id/logo": {},
  "POST /v1/organization_roles": {
    ...ROLE_FIELDS,
    // The emulator has no role sets: every role is offered everywhere, so `false` is refused by the endpoint.
    include_in_initial_role_set: "kept",
  },
  "PATCH /v1/organization_roles/:roleId": ROLE_FIELDS,
  "DELETE /v1/organization_roles/:roleId": {},
  "POST /v1/organization_roles/:roleId/permissions/:permissionId": {},
  "DELETE /v1/organization_roles/:roleId/permissions/:permissionId": {},
  "POST /v1/organization_permissions": PERMISSION_FIELDS,
  "PATCH /v1/organization_permissions/:permissionId": PERMISSION_FIELDS,
  "DELETE /v1/organization_permissions/:permissionId": {},
  "POST /v1/organizations/:id/invitations": ORGANIZATION_INVITATION_FIELDS,
  // The body is a list of invitations, each checked against ORGANIZATION_INVITATION_FIELDS by the endpoint.
  "POST /v1/organizations/:id/invitations/bulk": {},
  "POST /v1/organizations/:id/invitations/:invitationId/revoke": {
    // Who asks: the Backend API (the secret key) may revoke any invitation, so it changes nothing here.
    requesting_user_id: "flag",
  },
  "POST /v1/invitations": INVITATION_FIELDS,
  // A list of invitations, each checked against INVITATION_FIELDS by the endpoint.
  "POST /v1/invitations/bulk": {},
  "POST /v1/invitations/:id/revoke": {},
  "POST /v1/sign_in_tokens": {
    user_id: "kept",
    expires_in_seconds: "kept",
    org_id: { refused: "The emulator's sign-in tokens do not choose an active organization." },
  },
  "POST /v1/sign_in_tokens/:id/revoke": {},
  "POST /v1/sessions/:id/revoke": {},
  "POST /v1/testing_tokens": {},
  ...SESSION_TOKEN_FIELDS,
  "POST /v1/phone_numbers": {
    user_id: "kept",
    phone_number: "kept",
    verified: "kept",
    primary: "kept",
    reserved_for_second_factor: NO_SMS_SECOND_FACTOR,
  },
  "PATCH /v1/phone_numbers/:id": {
    verified: "kept",
    primary: "kept",
    reserved_for_second_factor: NO_SMS_SECOND_FACTOR,
  },
  "DELETE /v1/phone_numbers/:id": {},
  "POST /v1/phone_numbers/:id/prepare_verification": {},
  "POST /v1/phone_numbers/:id/attempt_verification": { verification_id: "kept", code: "kept" },
  "PUT /v1/users/:id/phone_number": { phone_number: "kept", identification_status: "kept" },
  ...USER_ACCESS_FIELDS,
  ...INSTANCE_BODY_FIELDS,
};

/**
 * A registrar whose writes refuse any body field `table` refuses or does not
 * name for them; a write with no entry cannot be registered (it throws).
 */
export function withDeclaredBodyFields(
  register: Route,
  table: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = BACKEND_BODY_FIELDS,
): Route {
  return (method, pattern, handler) => {
    if (method === "GET") return register(method, pattern, handler);
    const fields = table[`${method} ${pattern}`];
    if (!fields) {
      throw new Error(
        `Backend API ${method} ${pattern}: name its body fields in packages/clerk-emulator/src/backend/body-params.ts`,
      );
    }
    register(method, pattern, (req, res) => {
      refuseUnkeptFields(bodyOf(req.body), fields);
      return handler(req, res);
    });
  };
}

/** A JSON or form body's fields; an array (a bulk request) or an upload's bytes have none. */
export const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) && !Buffer.isBuffer(body)
    ? (body as Record<string, unknown>)
    : {};

/** A boolean as JSON sends it, or as a form does. */
export const isTrue = (value: unknown) => value === true || value === "true";

/** Clerk's 422 for the first field the table refuses or does not list (a refused `false` flag asks for nothing). */
export function refuseUnkeptFields(body: Record<string, unknown>, table: Readonly<Record<string, FieldRule>>): void {
  for (const [name, value] of Object.entries(body)) {
    const rule = table[name];
    if (rule === "kept" || rule === "flag" || value === undefined) continue;
    if (rule && (value === false || value === "false" || value === null)) continue;
    throw unknownParameter(name, rule?.refused);
  }
}

/** RFC 3339, as Clerk takes `created_at` and `legal_accepted_at` (Clerk's 422 `form_param_format_invalid` otherwise). */
export function timeOf(value: unknown, name: string): number {
  const text = str(value) ?? "";
  const t = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(t)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "invalid format",
      name,
      `${name} must contain a datetime specified in RFC3339 format (e.g. \`2022-10-20T10:00:27.645Z\`).`,
    );
  }
  return t;
}
