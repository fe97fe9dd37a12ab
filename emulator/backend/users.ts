import { invitationsTo, parseEmail, ticketUrl } from "../invitations";
import { backendInvitationJSON, deletedJSON, membershipJSON, publicOrganizationDataJSON, userJSON } from "../json";
import { mergeMetadata, parseMetadata } from "../metadata";
import { validateNewPassword } from "../passwords";
import { ApiError, paginate, str } from "../routing";
import { hashPassword, type UserRecord } from "../store";
import { asList, type BackendContext, type Route } from "./context";
import { filterList, orderBy, page, USER_COUNT, USER_LIST } from "./query-params";

/** Users: list, count, read, create, update (names, primary address, password, metadata), delete. */
export function registerUserRoutes(
  route: Route,
  { store, userOf, revokeSessionsOf, frontendApiUrl }: BackendContext,
): void {
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
    const email = parseEmail(asList(req.body?.email_address)[0] ?? "", "email_address");
    if (store.emailTaken(email)) {
      throw new ApiError(422, "form_identifier_exists", "That email address is taken.", "email_address");
    }
    const password = str(req.body?.password);
    if (password !== null && password.length < 8 && req.body?.skip_password_checks !== true) {
      throw new ApiError(422, "form_password_length_too_short", "Passwords must be 8 characters or more.", "password");
    }
    const name = (value: unknown) => str(value)?.trim().slice(0, 100) || null;
    const user = store.createUser({
      email,
      passwordHash: password ? hashPassword(password) : null,
      firstName: name(req.body?.first_name),
      lastName: name(req.body?.last_name),
    });
    return userJSON(store, user, "bapi");
  });
  route("DELETE", "/v1/users/:id", (req) => {
    const user = userOf(req);
    store.deleteUser(user);
    return deletedJSON("user", user.id);
  });
  route("PATCH", "/v1/users/:id", (req) => {
    const user = userOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = (value: unknown) => str(value)?.trim().slice(0, 100) || null;
    if (body.first_name !== undefined) user.firstName = name(body.first_name);
    if (body.last_name !== undefined) user.lastName = name(body.last_name);
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
      user.passwordHash = hashPassword(body.skip_password_checks === true ? password : validateNewPassword(password));
      user.passwordUpdatedAt = Date.now();
      if (body.sign_out_of_other_sessions === true) revokeSessionsOf(user);
    }
    for (const kind of ["public", "private", "unsafe"] as const) {
      const value = body[`${kind}_metadata`];
      if (value !== undefined) user[`${kind}Metadata`] = parseMetadata(value, `${kind}_metadata`);
    }
    user.updatedAt = Date.now();
    store.changed();
    return userJSON(store, user, "bapi");
  });
  // Clerk's merge: nested objects merge, a key set to null goes.
  route("PATCH", "/v1/users/:id/metadata", (req) => {
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
