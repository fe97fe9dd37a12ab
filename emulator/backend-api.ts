import { randomBytes } from "node:crypto";
import express, { type Request, type Router } from "express";
import type { Faults } from "./faults";
import {
  createInstanceInvitation,
  createInvitation,
  createSignInToken,
  parseEmail,
  revokeInvitation,
  revokeSignInToken,
  ticketUrl,
} from "./invitations";
import {
  backendInvitationJSON,
  backendSessionJSON,
  deletedJSON,
  fullName,
  instanceInvitationJSON,
  membershipJSON,
  organizationJSON,
  signInTokenJSON,
  userJSON,
} from "./json";
import { changeRole, membershipOf, parseRole, removeMember } from "./memberships";
import { mergeMetadata, parseMetadata } from "./metadata";
import { createOrganizationFor, updateOrganization, validateOrganizationInput } from "./organizations";
import { validateNewPassword } from "./passwords";
import { ApiError, clampInt, createRegistrar, notImplemented, paginate, str } from "./routing";
import { hashPassword, type InvitationRecord, type Store, type UserRecord } from "./store";
import { jwks, type SigningKey } from "./tokens";

export type BackendApiOptions = {
  store: Store;
  key: SigningKey;
  faults: Faults;
  secretKey: string;
  /** Where browsers reach the Frontend API, for the links in invitations and sign-in tokens. */
  frontendApiUrl: (req: Request) => string;
};

/** How long a testing token lasts: Clerk's last about an hour. */
const TESTING_TOKEN_TTL_MS = 60 * 60_000;

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

/** Clerk's Backend API, as much as the app's server uses. Bearer secret key required. */
export function createBackendApi({ store, key, faults, secretKey, frontendApiUrl }: BackendApiOptions): Router {
  const router = express.Router();
  router.use(express.json({ limit: "64kb" }));
  router.use(express.urlencoded({ extended: true, limit: "64kb" }));
  router.use((req, res, next) => {
    if (req.get("authorization") === `Bearer ${secretKey}`) return next();
    res
      .status(401)
      .type("application/json")
      .send(JSON.stringify(new ApiError(401, "authentication_invalid", "Invalid secret key").toJSON()));
  });
  const route = createRegistrar(router, "bapi", faults);

  const userOf = (req: Request): UserRecord => {
    const found = store.user(String(req.params.id));
    if (!found) throw new ApiError(404, "resource_not_found", "User not found");
    return found;
  };
  const revokeSessionsOf = (user: UserRecord) => {
    for (const s of store.state.sessions)
      if (s.userId === user.id && s.status === "active") store.endSession(s, "revoked");
  };

  const org = (req: Request) => {
    const found = store.org(String(req.params.id));
    if (!found) throw new ApiError(404, "resource_not_found", "Organization not found");
    return found;
  };

  route("GET", "/v1/jwks", () => jwks(key));

  // Users --------------------------------------------------------------------
  const filteredUsers = (req: Request) => {
    const ids = asList(req.query.user_id);
    const emails = asList(req.query.email_address).map((e) => e.toLowerCase());
    const query = str(req.query.query)?.toLowerCase() ?? "";
    return store.state.users.filter(
      (u) =>
        (ids.length === 0 || ids.includes(u.id)) &&
        (emails.length === 0 || emails.includes(u.email)) &&
        (!query || u.email.includes(query) || (fullName(u) ?? "").toLowerCase().includes(query)),
    );
  };
  route("GET", "/v1/users", (req) => {
    const limit = clampInt(req.query.limit, 10, 1, 500);
    const offset = clampInt(req.query.offset, 0, 0, 1_000_000);
    return filteredUsers(req)
      .slice(offset, offset + limit)
      .map((u) => userJSON(store, u, "bapi"));
  });
  route("GET", "/v1/users/count", (req) => ({ object: "total_count", total_count: filteredUsers(req).length }));
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

  // Organizations ------------------------------------------------------------
  route("GET", "/v1/organizations", (req) => {
    const query = str(req.query.query)?.toLowerCase() ?? "";
    const list = store.state.organizations
      .filter((o) => !query || o.name.toLowerCase().includes(query) || (o.slug ?? "").includes(query))
      .map((o) => organizationJSON(store, o, "bapi"));
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations", (req) => {
    const createdBy = str(req.body?.created_by);
    if (createdBy && !store.user(createdBy))
      throw new ApiError(422, "resource_not_found", "created_by user not found", "created_by");
    const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
    return organizationJSON(store, createOrganizationFor(store, createdBy, input), "bapi");
  });
  route("GET", "/v1/organizations/:id", (req) => organizationJSON(store, org(req), "bapi"));
  route("PATCH", "/v1/organizations/:id", (req) => {
    const found = org(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    updateOrganization(store, found, { name: str(body.name), slug: str(body.slug) });
    for (const kind of ["public", "private"] as const) {
      const value = body[`${kind}_metadata`];
      if (value !== undefined) found[`${kind}Metadata`] = parseMetadata(value, `${kind}_metadata`);
    }
    if (body.max_allowed_memberships !== undefined) {
      found.maxAllowedMemberships = clampInt(body.max_allowed_memberships, found.maxAllowedMemberships, 0, 1_000_000);
    }
    store.changed();
    return organizationJSON(store, found, "bapi");
  });
  route("DELETE", "/v1/organizations/:id", (req) => {
    const found = org(req);
    store.deleteOrganization(found);
    return deletedJSON("organization", found.id, found.slug ? { slug: found.slug } : {});
  });

  route("GET", "/v1/organizations/:id/memberships", (req) => {
    const found = org(req);
    const query = str(req.query.query)?.trim().toLowerCase() ?? "";
    const userIds = asList(req.query.user_id);
    const roles = asList(req.query.role);
    const list = store
      .membershipsOfOrg(found.id)
      .filter((m) => {
        const user = store.user(m.userId);
        if (!user) return false;
        if (userIds.length && !userIds.includes(user.id)) return false;
        if (roles.length && !roles.includes(m.role)) return false;
        return !query || user.email.includes(query) || (fullName(user) ?? "").toLowerCase().includes(query);
      })
      .sort((a, b) =>
        str(req.query.order_by) === "-created_at" ? b.createdAt - a.createdAt : a.createdAt - b.createdAt,
      )
      .map((m) => membershipJSON(store, m, "bapi"));
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations/:id/memberships", (req) => {
    const found = org(req);
    const userId = str(req.body?.user_id) ?? "";
    const role = parseRole(req.body?.role);
    if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
    if (store.membership(found.id, userId))
      throw new ApiError(400, "already_a_member_in_organization", "Already a member", "user_id");
    return membershipJSON(store, store.addMembership(found.id, userId, role), "bapi");
  });
  route("PATCH", "/v1/organizations/:id/memberships/:userId", (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    return membershipJSON(store, changeRole(store, m, parseRole(req.body?.role)), "bapi");
  });
  route("DELETE", "/v1/organizations/:id/memberships/:userId", (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    const json = membershipJSON(store, m, "bapi");
    removeMember(store, m);
    return json;
  });

  const invitationOut = (req: Request) => (inv: InvitationRecord) =>
    backendInvitationJSON(store, inv, ticketUrl(frontendApiUrl(req), inv.ticket));

  route("GET", "/v1/organizations/:id/invitations", (req) => {
    const found = org(req);
    const statuses = asList(req.query.status);
    const list = store.state.invitations
      .filter((i) => i.orgId === found.id && (statuses.length === 0 || statuses.includes(i.status)))
      // Asked for pending ones, an expired invitation is not among them.
      .filter((i) => !statuses.includes("pending") || i.status !== "pending" || i.expiresAt > Date.now())
      .map(invitationOut(req));
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations/:id/invitations", (req) => {
    const invitation = createInvitation(store, org(req), {
      email: parseEmail(req.body?.email_address),
      role: parseRole(req.body?.role),
      inviterUserId: str(req.body?.inviter_user_id),
      redirectUrl: str(req.body?.redirect_url),
      expiresInDays: clampInt(req.body?.expires_in_days, 0, 0, 365),
    });
    return invitationOut(req)(invitation);
  });
  route("GET", "/v1/organizations/:id/invitations/:invitationId", (req) => {
    const found = org(req);
    const invitation = store.state.invitations.find((i) => i.id === req.params.invitationId && i.orgId === found.id);
    if (!invitation) throw new ApiError(404, "organization_invitation_not_found", "Invitation not found");
    return invitationOut(req)(invitation);
  });
  route("POST", "/v1/organizations/:id/invitations/:invitationId/revoke", (req) =>
    invitationOut(req)(revokeInvitation(store, org(req), String(req.params.invitationId))),
  );

  // Invitations to the application: the link signs up the invited address.
  const instanceInvitationOut = (req: Request) => (inv: InvitationRecord) =>
    instanceInvitationJSON(inv, ticketUrl(frontendApiUrl(req), inv.ticket));
  route("GET", "/v1/invitations", (req) => {
    const status = str(req.query.status);
    const query = str(req.query.query)?.trim().toLowerCase() ?? "";
    const list = store.state.invitations
      .filter((i) => i.orgId === null)
      .map(instanceInvitationOut(req))
      .filter((i) => (!status || i.status === status) && (!query || i.email_address.includes(query)))
      .sort((a, b) =>
        str(req.query.order_by) === "created_at" ? a.created_at - b.created_at : b.created_at - a.created_at,
      );
    return paginate(list, req.query).data;
  });
  route("POST", "/v1/invitations", (req) => {
    const invitation = createInstanceInvitation(store, {
      email: parseEmail(req.body?.email_address),
      redirectUrl: str(req.body?.redirect_url),
      expiresInDays: clampInt(req.body?.expires_in_days, 0, 0, 365),
    });
    return instanceInvitationOut(req)(invitation);
  });
  route("POST", "/v1/invitations/:id/revoke", (req) => {
    const invitation = store.state.invitations.find((i) => i.orgId === null && i.id === req.params.id);
    if (!invitation) throw new ApiError(404, "resource_not_found", "Invitation not found");
    if (invitation.status !== "pending") {
      throw new ApiError(400, "invitation_not_pending", "Only a pending invitation can be revoked.");
    }
    invitation.status = "revoked";
    invitation.updatedAt = Date.now();
    store.changed();
    return instanceInvitationOut(req)(invitation);
  });

  // Test helpers' endpoints (@clerk/testing) -----------------------------------
  route("POST", "/v1/testing_tokens", () => {
    const token = `${Date.now()}-${randomBytes(16).toString("hex")}`;
    const expiresAt = Date.now() + TESTING_TOKEN_TTL_MS;
    store.testingTokens.set(token, expiresAt);
    return { object: "testing_token", token, expires_at: expiresAt };
  });
  route("POST", "/v1/sign_in_tokens", (req) => {
    const userId = str(req.body?.user_id) ?? "";
    if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
    const seconds = clampInt(req.body?.expires_in_seconds, 30 * 86_400, 1, 315_360_000);
    const record = createSignInToken(store, userId, seconds);
    return signInTokenJSON(record, ticketUrl(frontendApiUrl(req), record.ticket));
  });
  route("POST", "/v1/sign_in_tokens/:id/revoke", (req) => {
    const record = revokeSignInToken(store, String(req.params.id));
    return signInTokenJSON(record, ticketUrl(frontendApiUrl(req), record.ticket));
  });

  // Sessions and clients -----------------------------------------------------
  // Clerk wants a user or a client to list sessions of; the answer is a bare array.
  route("GET", "/v1/sessions", (req) => {
    const userId = str(req.query.user_id);
    const clientId = str(req.query.client_id);
    if (!userId && !clientId) {
      throw new ApiError(422, "form_param_missing", "Either user_id or client_id is required.", "user_id");
    }
    const status = str(req.query.status);
    const list = store.state.sessions
      .filter((s) => (!userId || s.userId === userId) && (!clientId || s.clientId === clientId))
      .filter((s) => !status || s.status === status)
      .sort((a, b) => b.createdAt - a.createdAt);
    return paginate(list, req.query).data.map(backendSessionJSON);
  });
  route("GET", "/v1/sessions/:id", (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    return backendSessionJSON(session);
  });
  route("POST", "/v1/sessions/:id/revoke", (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    if (session.status === "active") store.endSession(session, "revoked");
    return backendSessionJSON(session);
  });
  route("GET", "/v1/clients/handshake_payload", (req) => {
    const nonce = str(req.query.nonce);
    const found = store.state.handshakes.find((h) => h.nonce === nonce && h.expiresAt > Date.now());
    // Readable until it expires: the root and the route loaders of one request each resolve it.
    if (!found) throw new ApiError(404, "resource_not_found", "Handshake not found");
    return { directives: found.directives };
  });

  router.use(notImplemented);

  return router;
}
