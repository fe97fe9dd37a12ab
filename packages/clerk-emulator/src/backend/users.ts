import { invitationsTo, parseEmail, ticketUrl } from "../domain/invitations";
import { backendInvitationJSON, deletedJSON, membershipJSON, publicOrganizationDataJSON, userJSON } from "../json";
import { parseMetadata } from "../domain/metadata";
import { validateNewPassword } from "../domain/passwords";
import { refuseTakenEmail } from "../domain/email-addresses";
import { mergeUserMetadata } from "../domain/user-profile";
import { createUser, deleteUser, refuseTakenExternalId, updateUser } from "../domain/users";
import { ApiError } from "../domain/errors";
import { paginate, str } from "../http/routing";
import type { UserRecord } from "../state/store";
import { asList, type BackendContext, type Route } from "./context";
import { newUserIdentifiers } from "./user-identifiers";
import { parseMfaFields } from "./users-mfa";
import { bodyOf, isTrue, timeOf, type BodyFields } from "./declarations";
import {
  filterList,
  listParams,
  orderBy,
  page,
  type ListSpec,
  type Filter,
  includeExclude,
  noneHave,
  before,
  after,
  userFilters,
} from "./lists";

const NO_DIGESTS = { refused: "The emulator cannot verify imported password digests: send password instead." };

const NO_WALLETS = { refused: "The emulator's instance has no web3 wallets (its GUIDE.md)." };

const NO_PERMISSIONS = {
  refused: "The emulator keeps no per-user permissions: every user may delete themselves and create organizations.",
};

const COMMON_USER_FIELDS: BodyFields = {
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
  // The emulator has no legal requirements to check.
  skip_legal_checks: "flag",
  // domain/client-trust.ts: a password sign-in on a new browser is not held for a code.
  bypass_client_trust: "kept",
  created_at: "kept",
};

/** `POST /v1/users`. */
const USER_CREATE_FIELDS: BodyFields = {
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
const USER_UPDATE_FIELDS: BodyFields = {
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
export const USER_METADATA_FIELDS: BodyFields = {
  public_metadata: "kept",
  private_metadata: "kept",
  unsafe_metadata: "kept",
};

const USER_FILTERS: Record<string, Filter<UserRecord>> = {
  ...userFilters(),
  external_id: (values) => {
    const keep = includeExclude(values, (id) => [id]);
    return (u) => u.externalId !== null && keep(u.externalId);
  },
  user_id: (values) => {
    const keep = includeExclude(values, (id) => [id]);
    return (u) => keep(u.id);
  },
  organization_id: (values, store) => {
    const keep = includeExclude(values, (userId) => store.membershipsOfUser(userId).map((m) => m.orgId));
    return (u) => keep(u.id);
  },
  banned: (values) => {
    const value = values[values.length - 1];
    if (value !== "true" && value !== "false") {
      throw new ApiError(422, "form_param_format_invalid", "banned must be true or false.", "banned");
    }
    return (u) => (u.banned ?? false) === (value === "true");
  },
  last_active_at_since: after("last_active_at_since", (u) => (u.lastSignInAt === null ? null : u.lastSignInAt + 1)),
  created_at_before: before("created_at_before", (u) => u.createdAt),
  created_at_after: after("created_at_after", (u) => u.createdAt),
  last_sign_in_at_before: before("last_sign_in_at_before", (u) => u.lastSignInAt),
  last_sign_in_at_after: after("last_sign_in_at_after", (u) => u.lastSignInAt),
  // Nobody signs in with an OAuth provider here.
  provider: noneHave(),
  provider_user_id: noneHave(),
};

/** `GET /v1/users/count`: the list's filters, no paging. */
const USER_COUNT: ListSpec<UserRecord> = { filters: USER_FILTERS, options: [] };

/** `GET /v1/users`. */
export const USER_LIST: ListSpec<UserRecord> = {
  filters: USER_FILTERS,
  options: ["limit", "offset", "starting_after", "order_by"],
};

/** Users: list, count, read, create, update (names, primary address, password, metadata), delete. */
export function registerUserRoutes(route: Route, { store, userOf, frontendApiUrl }: BackendContext): void {
  /** The kept fields a create or update gives, each checked before anything changes. */
  const userFields = (body: Record<string, unknown>, user: UserRecord | null): Partial<UserRecord> => {
    const out: Partial<UserRecord> = {};
    const name = (value: unknown) => str(value)?.trim().slice(0, 100) || null;
    if (body.first_name !== undefined) out.firstName = name(body.first_name);
    if (body.last_name !== undefined) out.lastName = name(body.last_name);
    if (body.locale !== undefined) out.locale = str(body.locale)?.trim() || null;
    if (body.external_id !== undefined) {
      const externalId = str(body.external_id)?.trim() || null;
      if (externalId) refuseTakenExternalId(store, externalId, user);
      out.externalId = externalId;
    }
    if (body.legal_accepted_at !== undefined) {
      out.legalAcceptedAt =
        body.legal_accepted_at === null ? null : timeOf(body.legal_accepted_at, "legal_accepted_at");
    }
    if (body.created_at !== undefined) out.createdAt = timeOf(body.created_at, "created_at");
    if (body.bypass_client_trust !== undefined) out.bypassClientTrust = isTrue(body.bypass_client_trust);
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
    phone_number: (u) => u.phones.find((p) => p.id === u.phoneId)?.phone ?? null,
    username: (u) => u.username,
    // Nobody has one: the order among them stays as created.
    web3wallet: () => null,
  };
  route("GET", "/v1/users", { query: listParams(USER_LIST) }, (req) => {
    let list = orderBy(req, filterList(USER_LIST, req, store, store.all("users")), userOrders, "-created_at");
    const after = str(req.query.starting_after);
    if (after !== null) {
      const at = list.findIndex((u) => u.id === after);
      list = at === -1 ? [] : list.slice(at + 1);
    }
    return page(req, list).map((u) => userJSON(store, u, "bapi"));
  });
  route("GET", "/v1/users/count", { query: listParams(USER_COUNT) }, (req) => ({
    object: "total_count",
    total_count: filterList(USER_COUNT, req, store, store.all("users")).length,
  }));
  route("GET", "/v1/users/:id", { query: [] }, (req) => userJSON(store, userOf(req), "bapi"));
  route("POST", "/v1/users", { body: USER_CREATE_FIELDS }, (req) => {
    const body = bodyOf(req.body);
    const emails = asList(body.email_address).map((e) => parseEmail(e, "email_address"));
    if (emails.length === 0) throw new ApiError(422, "form_param_nil", "Enter email address.", "email_address");
    if (new Set(emails).size !== emails.length) {
      throw new ApiError(422, "form_param_duplicate", "email_address must not contain duplicates.", "email_address");
    }
    for (const email of emails) refuseTakenEmail(store, email);
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
    const identifiers = newUserIdentifiers(store, body);
    const fields = userFields(body, null);
    const mfa = parseMfaFields(body);
    const user = createUser(store, {
      emails,
      password,
      fields,
      ...identifiers,
      mfa,
      banned: isTrue(body.banned),
      locked: isTrue(body.locked),
    });
    return userJSON(store, user, "bapi");
  });
  route("DELETE", "/v1/users/:id", { body: {} }, (req) => deletedJSON("user", deleteUser(store, userOf(req)).id));
  route("PATCH", "/v1/users/:id", { body: USER_UPDATE_FIELDS }, (req) => {
    const user = userOf(req);
    const body = bodyOf(req.body);
    const fields = userFields(body, user);
    const mfa = parseMfaFields(body);
    const password = str(body.password);
    updateUser(store, user, {
      fields,
      mfa,
      imageId: str(body.profile_image_id),
      primaryEmailAddressId: str(body.primary_email_address_id),
      identifiers: body,
      password:
        password === null
          ? null
          : {
              value: password,
              skipChecks: isTrue(body.skip_password_checks),
              signOut: isTrue(body.sign_out_of_other_sessions),
            },
    });
    return userJSON(store, user, "bapi");
  });
  // Clerk's merge: nested objects merge, a key set to null goes.
  route("PATCH", "/v1/users/:id/metadata", { body: USER_METADATA_FIELDS }, (req) => {
    const user = userOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    mergeUserMetadata(store, user, {
      public: body.public_metadata,
      private: body.private_metadata,
      unsafe: body.unsafe_metadata,
    });
    return userJSON(store, user, "bapi");
  });
  route("GET", "/v1/users/:id/organization_memberships", { query: ["limit", "offset"] }, (req) => {
    const list = store.membershipsOfUser(String(req.params.id)).map((m) => membershipJSON(store, m, "bapi"));
    return paginate(list, req.query);
  });
  // The invitations waiting for the person (by any verified address), each with its organization's public data.
  route("GET", "/v1/users/:id/organization_invitations", { query: ["status", "limit", "offset"] }, (req) => {
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
