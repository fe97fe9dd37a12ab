import express, { type Request, type Router } from "express";
import type { Faults } from "./faults";
import { newId } from "./ids";
import { fullName, invitationJSON, membershipJSON, organizationJSON, sessionJSON, userJSON } from "./json";
import { createOrganizationFor, validateOrganizationInput } from "./organizations";
import { ApiError, clampInt, createRegistrar, notImplemented, paginate, str } from "./routing";
import type { Role, Store } from "./store";
import { jwks, type SigningKey } from "./tokens";

export type BackendApiOptions = { store: Store; key: SigningKey; faults: Faults; secretKey: string };

const ROLES: Role[] = ["org:admin", "org:member"];

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

/** Clerk's Backend API, as much as the app's server uses. Bearer secret key required. */
export function createBackendApi({ store, key, faults, secretKey }: BackendApiOptions): Router {
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
      .map((u) => userJSON(store, u, { withMemberships: false }));
  });
  route("GET", "/v1/users/count", (req) => ({ object: "total_count", total_count: filteredUsers(req).length }));
  route("GET", "/v1/users/:id", (req) => {
    const user = store.user(String(req.params.id));
    if (!user) throw new ApiError(404, "resource_not_found", "User not found");
    return userJSON(store, user, { withMemberships: false });
  });
  route("GET", "/v1/users/:id/organization_memberships", (req) => {
    const list = store.membershipsOfUser(String(req.params.id)).map((m) => membershipJSON(store, m));
    return paginate(list, req.query);
  });

  // Organizations ------------------------------------------------------------
  route("GET", "/v1/organizations", (req) => {
    const query = str(req.query.query)?.toLowerCase() ?? "";
    const list = store.state.organizations
      .filter((o) => !query || o.name.toLowerCase().includes(query) || (o.slug ?? "").includes(query))
      .map((o) => organizationJSON(store, o));
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations", (req) => {
    const createdBy = str(req.body?.created_by);
    if (createdBy && !store.user(createdBy))
      throw new ApiError(422, "resource_not_found", "created_by user not found", "created_by");
    const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
    return organizationJSON(store, createOrganizationFor(store, createdBy, input));
  });
  route("GET", "/v1/organizations/:id", (req) => organizationJSON(store, org(req)));

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
      .map((m) => membershipJSON(store, m));
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations/:id/memberships", (req) => {
    const found = org(req);
    const userId = str(req.body?.user_id) ?? "";
    const role = str(req.body?.role) as Role;
    if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
    if (!ROLES.includes(role)) throw new ApiError(422, "form_param_value_invalid", "Unknown role", "role");
    if (store.membership(found.id, userId))
      throw new ApiError(422, "already_a_member_in_organization", "Already a member", "user_id");
    return membershipJSON(store, store.addMembership(found.id, userId, role));
  });

  route("GET", "/v1/organizations/:id/invitations", (req) => {
    const found = org(req);
    const statuses = asList(req.query.status);
    const list = store.state.invitations
      .filter((i) => i.orgId === found.id && (statuses.length === 0 || statuses.includes(i.status)))
      .map(invitationJSON);
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations/:id/invitations", (req) => {
    const found = org(req);
    const email = (str(req.body?.email_address) ?? "").trim().toLowerCase();
    const role = str(req.body?.role) as Role;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) {
      throw new ApiError(
        422,
        "form_param_format_invalid",
        "email_address must be a valid email address.",
        "email_address",
      );
    }
    if (!ROLES.includes(role)) throw new ApiError(422, "form_param_value_invalid", "Unknown role", "role");
    const existingUser = store.userByEmail(email);
    if (existingUser && store.membership(found.id, existingUser.id)) {
      throw new ApiError(
        422,
        "already_a_member_in_organization",
        `${email} is already a member of this organization.`,
        "email_address",
      );
    }
    if (store.state.invitations.some((i) => i.orgId === found.id && i.email === email && i.status === "pending")) {
      throw new ApiError(422, "duplicate_record", `${email} has already been invited.`, "email_address");
    }
    const t = Date.now();
    const invitation = {
      id: newId("orginv"),
      orgId: found.id,
      email,
      role,
      status: "pending" as const,
      inviterUserId: str(req.body?.inviter_user_id),
      createdAt: t,
      updatedAt: t,
    };
    store.state.invitations.push(invitation);
    store.changed();
    return invitationJSON(invitation);
  });

  // Sessions and clients -----------------------------------------------------
  route("GET", "/v1/sessions/:id", (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    return { ...sessionJSON(store, session, null), user: undefined };
  });
  route("POST", "/v1/sessions/:id/revoke", (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    if (session.status === "active") store.endSession(session, "revoked");
    return { ...sessionJSON(store, session, null), user: undefined };
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
