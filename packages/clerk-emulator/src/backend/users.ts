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
import { bodyOf, isTrue, timeOf } from "./body-params";
import { filterList, orderBy, page, USER_COUNT, USER_LIST } from "./query-params";
import { parseMfaFields } from "./users-mfa";

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
  route("GET", "/v1/users", (req) => {
    let list = orderBy(req, filterList(USER_LIST, req, store, store.all("users")), userOrders, "-created_at");
    const after = str(req.query.starting_after);
    if (after !== null) {
      const at = list.findIndex((u) => u.id === after);
      list = at === -1 ? [] : list.slice(at + 1);
    }
    return page(req, list).map((u) => userJSON(store, u, "bapi"));
  });
  route("GET", "/v1/users/count", (req) => ({
    object: "total_count",
    total_count: filterList(USER_COUNT, req, store, store.all("users")).length,
  }));
  route("GET", "/v1/users/:id", (req) => userJSON(store, userOf(req), "bapi"));
  route("POST", "/v1/users", (req) => {
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
  route("DELETE", "/v1/users/:id", (req) => deletedJSON("user", deleteUser(store, userOf(req)).id));
  route("PATCH", "/v1/users/:id", (req) => {
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
  route("PATCH", "/v1/users/:id/metadata", (req) => {
    const user = userOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    mergeUserMetadata(store, user, {
      public: body.public_metadata,
      private: body.private_metadata,
      unsafe: body.unsafe_metadata,
    });
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
