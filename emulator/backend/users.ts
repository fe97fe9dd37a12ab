import { invitationsTo, parseEmail, ticketUrl } from "../invitations";
import { backendInvitationJSON, deletedJSON, membershipJSON, publicOrganizationDataJSON, userJSON } from "../json";
import { mergeMetadata, parseMetadata } from "../metadata";
import { validateNewPassword } from "../passwords";
import { ApiError, paginate, str } from "../routing";
import { newId } from "../ids";
import { hashPassword, type UserRecord } from "../store";
import { asList, type BackendContext, type Route } from "./context";
import { filterList, orderBy, page, unknownParameter, USER_COUNT, USER_LIST } from "./query-params";

/**
 * What the emulator does with each body field Clerk's OpenAPI description
 * lists for creating and updating a user: `kept` (stored, answered, and read
 * where it matters), `flag` (an instruction it follows: a check to skip, a
 * notice it never sends), or refused with the reason. A field refused, or
 * not listed at all, is Clerk's 422 `form_param_unknown` naming it, what
 * Clerk answers for a field of a feature the instance has turned off (this
 * instance has no phone numbers, usernames, web3 wallets or MFA). Nothing is
 * silently dropped.
 */
type FieldRule = "kept" | "flag" | { refused: string };

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

const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/** A boolean as JSON sends it, or as a form does. */
const isTrue = (value: unknown) => value === true || value === "true";

/** Clerk's 422 for the first field the table refuses or does not list (a refused `false` flag asks for nothing). */
function refuseUnkeptFields(body: Record<string, unknown>, table: Readonly<Record<string, FieldRule>>): void {
  for (const [name, value] of Object.entries(body)) {
    const rule = table[name];
    if (rule === "kept" || rule === "flag" || value === undefined) continue;
    if (rule && (value === false || value === "false" || value === null)) continue;
    throw unknownParameter(name, rule?.refused);
  }
}

/** RFC 3339, as Clerk takes `created_at` and `legal_accepted_at` (Clerk's 422 `form_param_format_invalid` otherwise). */
function timeOf(value: unknown, name: string): number {
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

/** Users: list, count, read, create, update (names, primary address, password, metadata), delete. */
export function registerUserRoutes(
  route: Route,
  { store, userOf, revokeSessionsOf, frontendApiUrl }: BackendContext,
): void {
  /** The kept fields a create or update gives, each checked before anything changes. */
  const userFields = (body: Record<string, unknown>, user: UserRecord | null): Partial<UserRecord> => {
    const out: Partial<UserRecord> = {};
    const name = (value: unknown) => str(value)?.trim().slice(0, 100) || null;
    if (body.first_name !== undefined) out.firstName = name(body.first_name);
    if (body.last_name !== undefined) out.lastName = name(body.last_name);
    if (body.locale !== undefined) out.locale = str(body.locale)?.trim() || null;
    if (body.external_id !== undefined) {
      const externalId = str(body.external_id)?.trim() || null;
      if (externalId && store.state.users.some((u) => u !== user && u.externalId === externalId)) {
        throw new ApiError(
          422,
          "form_identifier_exists",
          "That external id is taken. Please try another.",
          "external_id",
        );
      }
      out.externalId = externalId;
    }
    if (body.legal_accepted_at !== undefined) {
      out.legalAcceptedAt =
        body.legal_accepted_at === null ? null : timeOf(body.legal_accepted_at, "legal_accepted_at");
    }
    if (body.created_at !== undefined) out.createdAt = timeOf(body.created_at, "created_at");
    for (const kind of ["public", "private", "unsafe"] as const) {
      const value = body[`${kind}_metadata`];
      if (value !== undefined) out[`${kind}Metadata`] = parseMetadata(value, `${kind}_metadata`);
    }
    return out;
  };

  // Clerk's orders for the users list (`order_by`, newest first unless asked otherwise).
  const userOrders: Record<string, (u: UserRecord) => string | number | null> = {
    created_at: (u) => u.createdAt,
    updated_at: (u) => u.updatedAt,
    email_address: (u) => u.email,
    first_name: (u) => u.firstName?.toLowerCase() ?? null,
    last_name: (u) => u.lastName?.toLowerCase() ?? null,
    last_active_at: (u) => u.lastSignInAt,
    last_sign_in_at: (u) => u.lastSignInAt,
    // Nobody has one: the order among them stays as created.
    phone_number: () => null,
    username: () => null,
    web3wallet: () => null,
  };
  route("GET", "/v1/users", (req) => {
    let list = orderBy(req, filterList(USER_LIST, req, store, store.state.users), userOrders, "-created_at");
    const after = str(req.query.starting_after);
    if (after !== null) {
      const at = list.findIndex((u) => u.id === after);
      list = at === -1 ? [] : list.slice(at + 1);
    }
    return page(req, list).map((u) => userJSON(store, u, "bapi"));
  });
  route("GET", "/v1/users/count", (req) => ({
    object: "total_count",
    total_count: filterList(USER_COUNT, req, store, store.state.users).length,
  }));
  route("GET", "/v1/users/:id", (req) => userJSON(store, userOf(req), "bapi"));
  route("POST", "/v1/users", (req) => {
    const body = bodyOf(req.body);
    refuseUnkeptFields(body, USER_CREATE_FIELDS);
    const emails = asList(body.email_address).map((e) => parseEmail(e, "email_address"));
    if (emails.length === 0) throw new ApiError(422, "form_param_nil", "Enter email address.", "email_address");
    if (new Set(emails).size !== emails.length) {
      throw new ApiError(422, "form_param_duplicate", "email_address must not contain duplicates.", "email_address");
    }
    if (emails.some((e) => store.emailTaken(e))) {
      throw new ApiError(
        422,
        "form_identifier_exists",
        "That email address is taken. Please try another.",
        "email_address",
      );
    }
    const statuses = asList(body.email_address_identification_status);
    if (statuses.length > 0 && statuses.length !== emails.length) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "email_address_identification_status must have one item per email address.",
        "email_address_identification_status",
      );
    }
    if (statuses.some((s) => s !== "verified")) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "email_address_identification_status",
        "The emulator creates every address verified: it has no reserved addresses.",
      );
    }
    const password = str(body.password);
    if (password !== null && !isTrue(body.skip_password_checks)) validateNewPassword(password);
    const fields = userFields(body, null);
    const user = store.createUser({
      email: emails[0]!,
      passwordHash: password ? hashPassword(password) : null,
      firstName: fields.firstName ?? null,
      lastName: fields.lastName ?? null,
    });
    for (const email of emails.slice(1)) {
      user.emails.push({
        id: newId("idn"),
        email,
        verified: true,
        createdAt: user.createdAt,
        updatedAt: user.createdAt,
      });
    }
    Object.assign(user, fields);
    if (fields.createdAt !== undefined) user.updatedAt = fields.createdAt;
    store.changed();
    return userJSON(store, user, "bapi");
  });
  route("DELETE", "/v1/users/:id", (req) => {
    const user = userOf(req);
    store.deleteUser(user);
    return deletedJSON("user", user.id);
  });
  route("PATCH", "/v1/users/:id", (req) => {
    const user = userOf(req);
    const body = bodyOf(req.body);
    refuseUnkeptFields(body, USER_UPDATE_FIELDS);
    const fields = userFields(body, user);
    const imageId = str(body.profile_image_id);
    if (imageId !== null && !store.image(imageId)) {
      throw new ApiError(422, "form_param_value_invalid", "No such image.", "profile_image_id");
    }
    const primary = str(body.primary_email_address_id);
    if (primary !== null) {
      const email = user.emails.find((e) => e.id === primary && e.verified);
      if (!email) {
        throw new ApiError(
          422,
          "form_param_value_invalid",
          "No such verified email address.",
          "primary_email_address_id",
        );
      }
      user.email = email.email;
      user.emailId = email.id;
    }
    const password = str(body.password);
    if (password !== null) {
      user.passwordHash = hashPassword(isTrue(body.skip_password_checks) ? password : validateNewPassword(password));
      user.passwordUpdatedAt = Date.now();
      if (isTrue(body.sign_out_of_other_sessions)) revokeSessionsOf(user);
    }
    if (imageId !== null && imageId !== user.imageId) {
      store.deleteImage(user.imageId);
      user.imageId = imageId;
    }
    Object.assign(user, fields);
    user.updatedAt = Date.now();
    store.changed();
    return userJSON(store, user, "bapi");
  });
  // Clerk's merge: nested objects merge, a key set to null goes.
  route("PATCH", "/v1/users/:id/metadata", (req) => {
    refuseUnkeptFields(bodyOf(req.body), USER_METADATA_FIELDS);
    const user = userOf(req);
    for (const kind of ["public", "private", "unsafe"] as const) {
      const value: unknown = req.body?.[`${kind}_metadata`];
      if (value !== undefined) {
        user[`${kind}Metadata`] = mergeMetadata(user[`${kind}Metadata`], parseMetadata(value, `${kind}_metadata`));
      }
    }
    user.updatedAt = Date.now();
    store.changed();
    return userJSON(store, user, "bapi");
  });
  route("GET", "/v1/users/:id/organization_memberships", (req) => {
    const list = store.membershipsOfUser(String(req.params.id)).map((m) => membershipJSON(store, m, "bapi"));
    return paginate(list, req.query);
  });
  // The invitations waiting for the person (by any verified address), each with its organization's public data.
  route("GET", "/v1/users/:id/organization_invitations", (req) => {
    const status = str(req.query.status);
    if (status && !["pending", "accepted", "revoked", "expired"].includes(status)) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "status must be pending, accepted, revoked or expired.",
        "status",
      );
    }
    const list = invitationsTo(store, userOf(req), status ? [status] : []).map((inv) => {
      const org = store.org(inv.orgId!)!;
      return {
        ...backendInvitationJSON(store, inv, ticketUrl(frontendApiUrl(req), inv.ticket)),
        public_organization_data: publicOrganizationDataJSON(store, org),
      };
    });
    return paginate(list, req.query);
  });
}
