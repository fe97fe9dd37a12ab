import { ApiError, str, type Route } from "../routing";
import { INSTANCE_BODY_FIELDS } from "./instance-params";
import { unknownParameter } from "./query-params";

/**
 * The one rule for the Backend API's request bodies, beside query-params.ts'
 * for query strings: every write the emulator answers (POST, PATCH, PUT,
 * DELETE) names here each body field Clerk's OpenAPI description lists for it
 * (tests/unit/emulator-body-fields.test.ts compares the two), with what the
 * emulator does with it:
 *
 * - `kept`: stored, answered, and read where it matters;
 * - `flag`: an instruction it follows (a check to skip, a notice it never
 *   needs to send);
 * - refused, with the reason.
 *
 * A field refused, or not listed at all, is Clerk's 422 `form_param_unknown`
 * naming it, which is what Clerk answers for a field of a feature the instance
 * has turned off (this instance has no phone numbers, usernames, web3 wallets
 * or MFA); a refused flag sent as `false` asks for nothing and passes. The
 * request is refused before its endpoint runs, so nothing is created or
 * changed, and a write with no entry cannot be registered: nothing is ever
 * silently dropped.
 */
export type FieldRule = "kept" | "flag" | { refused: string };

const NO_PHONES = { refused: "The emulator's instance has no phone numbers (docs/emulator.md)." };
const NO_USERNAMES = { refused: "The emulator's instance has no usernames (docs/emulator.md)." };
const NO_WALLETS = { refused: "The emulator's instance has no web3 wallets (docs/emulator.md)." };
const NO_MFA = { refused: "The emulator's instance has no multi-factor authentication (docs/emulator.md)." };
const NO_DIGESTS = { refused: "The emulator cannot verify imported password digests: send password instead." };
const NO_PERMISSIONS = {
  refused: "The emulator keeps no per-user permissions: every user may delete themselves and create organizations.",
};

const COMMON_USER_FIELDS: Record<string, FieldRule> = {
  external_id: "kept",
  first_name: "kept",
  last_name: "kept",
  locale: "kept",
  username: NO_USERNAMES,
  password: "kept",
  password_digest: NO_DIGESTS,
  password_hasher: NO_DIGESTS,
  skip_password_checks: "flag",
  totp_secret: NO_MFA,
  backup_codes: NO_MFA,
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
  phone_number: NO_PHONES,
  phone_number_identification_status: NO_PHONES,
  web3_wallet: NO_WALLETS,
  // The emulator never requires a password, nor anything but an email address, which every user has.
  skip_password_requirement: "flag",
  skip_user_requirement: "flag",
  banned: { refused: "The emulator bans nobody." },
  locked: { refused: "The emulator locks nobody." },
};

/** `PATCH /v1/users/:id`. */
export const USER_UPDATE_FIELDS: Readonly<Record<string, FieldRule>> = {
  ...COMMON_USER_FIELDS,
  primary_email_address_id: "kept",
  // No email is ever sent.
  notify_primary_email_address_changed: "flag",
  primary_phone_number_id: NO_PHONES,
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

const NO_ROLE_SETS = { refused: "The emulator has one set of roles, org:admin and org:member (docs/emulator.md)." };
const NO_MEMBERSHIP_METADATA = { refused: "The emulator keeps no metadata on memberships." };
const NO_INVITATION_METADATA = {
  refused: "The emulator keeps no metadata on invitations (Clerk copies it onto the user who accepts).",
};
const METADATA: Record<string, FieldRule> = { public_metadata: "kept", private_metadata: "kept" };

/**
 * Every Backend API write the emulator answers (`METHOD pattern`), and the
 * body fields Clerk documents for it. An empty entry: Clerk documents no body.
 */
export const BACKEND_BODY_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  "POST /v1/users": USER_CREATE_FIELDS,
  "PATCH /v1/users/:id": USER_UPDATE_FIELDS,
  "PATCH /v1/users/:id/metadata": USER_METADATA_FIELDS,
  "DELETE /v1/users/:id": {},
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
    public_metadata: NO_MEMBERSHIP_METADATA,
    private_metadata: NO_MEMBERSHIP_METADATA,
  },
  "PATCH /v1/organizations/:id/memberships/:userId": { role: "kept" },
  "DELETE /v1/organizations/:id/memberships/:userId": {},
  "POST /v1/organizations/:id/invitations": {
    email_address: "kept",
    role: "kept",
    inviter_user_id: "kept",
    redirect_url: "kept",
    expires_in_days: "kept",
    // `false`: no invitation email, so no `email.created` webhook (the link is in the answer's `url` all the same).
    notify: "flag",
    public_metadata: NO_INVITATION_METADATA,
    private_metadata: NO_INVITATION_METADATA,
  },
  "POST /v1/organizations/:id/invitations/:invitationId/revoke": {
    // Who asks: the Backend API (the secret key) may revoke any invitation, so it changes nothing here.
    requesting_user_id: "flag",
  },
  "POST /v1/invitations": {
    email_address: "kept",
    redirect_url: "kept",
    expires_in_days: "kept",
    ignore_existing: "flag",
    // `false`: no invitation email, so no `email.created` webhook. The template is always Clerk's `invitation`.
    notify: "flag",
    template_slug: "flag",
    public_metadata: NO_INVITATION_METADATA,
  },
  "POST /v1/invitations/:id/revoke": {},
  "POST /v1/sign_in_tokens": {
    user_id: "kept",
    expires_in_seconds: "kept",
    org_id: { refused: "The emulator's sign-in tokens do not choose an active organization." },
  },
  "POST /v1/sign_in_tokens/:id/revoke": {},
  "POST /v1/sessions/:id/revoke": {},
  "POST /v1/testing_tokens": {},
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
      throw new Error(`Backend API ${method} ${pattern}: name its body fields in emulator/backend/body-params.ts`);
    }
    register(method, pattern, (req, res) => {
      refuseUnkeptFields(bodyOf(req.body), fields);
      return handler(req, res);
    });
  };
}

export const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

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
