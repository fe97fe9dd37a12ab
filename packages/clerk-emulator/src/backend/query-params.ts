import type { Request } from "express";
import { fullName } from "../domain/public-profile";
import { INSTANCE_QUERY_PARAMS } from "./instance-params";
import { ApiError } from "../domain/errors";
import { clampInt, str, valuesOf, type Route } from "../http/routing";
import type {
  InvitationRecord,
  MembershipRecord,
  OrgRecord,
  PermissionRecord,
  RoleRecord,
  SessionRecord,
  Store,
  UserRecord,
} from "../state/store";

/**
 * The one rule for the Backend API's query parameters: every GET the emulator
 * answers names, here, each query parameter Clerk's OpenAPI description gives
 * it (tests/unit/query-params.test.ts compares the two). A parameter
 * not named is refused with Clerk's 422 `form_param_unknown`, never ignored;
 * registering a GET that has no entry here throws at start-up
 * (backend/index.ts). A list's filters are functions, so a filter
 * that is named is also applied: one on an attribute the emulator does not keep
 * (web3 wallets, external accounts) keeps nobody,
 * as Clerk would answer on an instance where nobody has one.
 */

/** One filter: given the values asked for, which items it keeps. */
type Filter<T> = (values: string[], store: Store) => (item: T) => boolean;

export type ListSpec<T> = {
  /** Query parameters that narrow the list. */
  filters: Readonly<Record<string, Filter<T>>>;
  /** The others, which the endpoint reads itself: paging, order, answer shape. */
  options: readonly string[];
};

const lower = (values: string[]) => values.map((v) => v.trim().toLowerCase());

/** Clerk's `+id` / `-id`: an id kept, or left out; with only exclusions, everything else is kept. */
const includeExclude = (values: string[], idsOf: (item: string) => string[]) => {
  const include = values.filter((v) => !v.startsWith("-")).map((v) => v.replace(/^\+/, ""));
  const exclude = values.filter((v) => v.startsWith("-")).map((v) => v.slice(1));
  return (item: string) => {
    const ids = idsOf(item);
    if (exclude.some((id) => ids.includes(id))) return false;
    return include.length === 0 || include.some((id) => ids.includes(id));
  };
};

/** An attribute no record has: asked for, it keeps nothing. */
const noneHave =
  <T>(): Filter<T> =>
  () =>
  () =>
    false;

/** Milliseconds since the epoch, as Clerk takes them; anything else is Clerk's 422. */
const timestamp = (name: string, values: string[]) => {
  const value = values[values.length - 1] ?? "";
  if (!/^\d+$/.test(value)) {
    throw new ApiError(422, "form_param_format_invalid", `${name} must be a timestamp in milliseconds.`, name);
  }
  return Number(value);
};
const before =
  <T>(name: string, at: (item: T, store: Store) => number | null): Filter<T> =>
  (values, store) => {
    const t = timestamp(name, values);
    return (item) => {
      const value = at(item, store);
      return value !== null && value < t;
    };
  };
const after =
  <T>(name: string, at: (item: T, store: Store) => number | null): Filter<T> =>
  (values, store) => {
    const t = timestamp(name, values);
    return (item) => {
      const value = at(item, store);
      return value !== null && value > t;
    };
  };

/** A case-insensitive partial match of `texts` against the (last) value given; an empty one keeps all. */
const partial =
  <T>(texts: (item: T, store: Store) => (string | null)[]): Filter<T> =>
  (values, store) => {
    const wanted = (values[values.length - 1] ?? "").trim().toLowerCase();
    return (item) => !wanted || texts(item, store).some((t) => (t ?? "").toLowerCase().includes(wanted));
  };

const emailsOf = (u: UserRecord) => u.emails.map((e) => e.email);
const phonesOf = (u: UserRecord) => u.phones.map((p) => p.phone);
const namesOf = (u: UserRecord) => [u.firstName, u.lastName, fullName(u)];
/** Where Clerk's `query` looks on a user: addresses, phone numbers, username, ids, names (wallets: none here). */
const searchableOf = (u: UserRecord) => [...emailsOf(u), ...phonesOf(u), u.username, u.id, u.externalId, ...namesOf(u)];
/** The user's last activity as the emulator shows it (`last_active_at` in its JSON). */
const lastActiveAt = (u: UserRecord) => u.lastSignInAt;

/** Filters on a user, shared by the users list, its count and an organization's memberships. */
function userFilters(): Record<string, Filter<UserRecord>> {
  return {
    email_address: (values) => {
      const wanted = lower(values);
      return (u) => emailsOf(u).some((e) => wanted.includes(e));
    },
    phone_number: (values) => {
      const wanted = values.map((v) => v.replace(/[\s().-]/g, ""));
      return (u) => phonesOf(u).some((p) => wanted.includes(p));
    },
    username: (values) => {
      const wanted = lower(values);
      return (u) => u.username !== null && wanted.includes(u.username);
    },
    web3_wallet: noneHave(),
    query: partial(searchableOf),
    email_address_query: partial(emailsOf),
    phone_number_query: partial(phonesOf),
    username_query: partial((u) => [u.username]),
    name_query: partial(namesOf),
    last_active_at_before: before("last_active_at_before", lastActiveAt),
    last_active_at_after: after("last_active_at_after", lastActiveAt),
  };
}

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
export const USER_COUNT: ListSpec<UserRecord> = { filters: USER_FILTERS, options: [] };
/** `GET /v1/users`. */
export const USER_LIST: ListSpec<UserRecord> = {
  filters: USER_FILTERS,
  options: ["limit", "offset", "starting_after", "order_by"],
};

/** A membership's filters are its user's, plus its own. */
const onMember =
  (filter: Filter<UserRecord>): Filter<MembershipRecord> =>
  (values, store) => {
    const keep = filter(values, store);
    return (m) => {
      const user = store.user(m.userId);
      return user !== null && keep(user);
    };
  };

/** `GET /v1/organizations/:id/memberships`. */
export const MEMBERSHIP_LIST: ListSpec<MembershipRecord> = {
  filters: {
    ...Object.fromEntries(Object.entries(userFilters()).map(([name, f]) => [name, onMember(f)])),
    user_id: (values) => {
      const keep = includeExclude(values, (id) => [id]);
      return (m) => keep(m.userId);
    },
    role: (values) => (m) => values.includes(m.role),
    created_at_before: onMember(before("created_at_before", (u) => u.createdAt)),
    created_at_after: onMember(after("created_at_after", (u) => u.createdAt)),
  },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/organizations`. */
export const ORGANIZATION_LIST: ListSpec<OrgRecord> = {
  filters: {
    query: partial((o) => [o.id, o.name, o.slug]),
    user_id: (values, store) => {
      const keep = includeExclude(values, (orgId) => store.membershipsOfOrg(orgId).map((m) => m.userId));
      return (o) => keep(o.id);
    },
    organization_id: (values) => {
      const keep = includeExclude(values, (id) => [id]);
      return (o) => keep(o.id);
    },
  },
  // Every organization the emulator answers carries its members_count; no member is missing.
  options: ["include_members_count", "include_missing_member_with_elevated_permissions", "order_by", "limit", "offset"],
};

/** An invitation's status as Clerk answers it: a pending one past its time is expired. */
export const invitationStatus = (i: InvitationRecord) =>
  i.status === "pending" && i.expiresAt <= Date.now() ? "expired" : i.status;

/** `GET /v1/organizations/:id/invitations`. */
export const ORGANIZATION_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    email_address: (values) => {
      const wanted = lower(values);
      return (i) => wanted.includes(i.email);
    },
  },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/invitations` (the application's). */
export const INSTANCE_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    query: partial((i) => [i.email, i.id]),
  },
  // `paginated`: Clerk's description of version 2025-11-10 gives this list one shape, an array.
  options: ["order_by", "paginated", "limit", "offset"],
};

/** `GET /v1/organization_invitations`: every organization's invitations. */
export const INSTANCE_ORGANIZATION_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    query: partial((i) => [i.email, i.id]),
  },
  options: ["order_by", "limit", "offset"],
};

/** Clerk's `query` on roles and permissions: the id exactly, the name or key in part. */
const idNameOrKey =
  <T extends { id: string; name: string; key: string }>(): Filter<T> =>
  (values) => {
    const wanted = (values[values.length - 1] ?? "").trim();
    const text = wanted.toLowerCase();
    return (item) =>
      !wanted || item.id === wanted || item.name.toLowerCase().includes(text) || item.key.toLowerCase().includes(text);
  };

/** `GET /v1/organization_roles`. */
export const ROLE_LIST: ListSpec<RoleRecord> = {
  filters: { query: idNameOrKey() },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/organization_permissions`. */
export const PERMISSION_LIST: ListSpec<PermissionRecord> = {
  filters: { query: idNameOrKey() },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/sessions`. */
export const SESSION_LIST: ListSpec<SessionRecord> = {
  filters: {
    client_id: (values) => (s) => values.includes(s.clientId),
    user_id: (values) => (s) => values.includes(s.userId),
    status: (values) => (s) => values.includes(s.status),
  },
  options: ["paginated", "limit", "offset"],
};

const namesIn = (spec: ListSpec<unknown>) => [...Object.keys(spec.filters), ...spec.options];

/**
 * Every Backend API GET the emulator answers (its route pattern), with the
 * query parameters Clerk documents for it.
 */
export const BACKEND_QUERY_PARAMS: Readonly<Record<string, readonly string[]>> = {
  "/v1/jwks": [],
  "/v1/users": namesIn(USER_LIST as ListSpec<unknown>),
  "/v1/users/count": namesIn(USER_COUNT as ListSpec<unknown>),
  "/v1/users/:id": [],
  "/v1/users/:id/organization_memberships": ["limit", "offset"],
  "/v1/users/:id/organization_invitations": ["status", "limit", "offset"],
  "/v1/organizations": namesIn(ORGANIZATION_LIST as ListSpec<unknown>),
  "/v1/organizations/:id": ["include_members_count", "include_missing_member_with_elevated_permissions"],
  "/v1/organizations/:id/memberships": namesIn(MEMBERSHIP_LIST as ListSpec<unknown>),
  "/v1/organizations/:id/invitations": namesIn(ORGANIZATION_INVITATION_LIST as ListSpec<unknown>),
  "/v1/organizations/:id/invitations/:invitationId": [],
  "/v1/invitations": namesIn(INSTANCE_INVITATION_LIST as ListSpec<unknown>),
  "/v1/organization_memberships": ["order_by", "limit", "offset"],
  "/v1/organization_invitations": namesIn(INSTANCE_ORGANIZATION_INVITATION_LIST as ListSpec<unknown>),
  "/v1/organizations/:id/invitations/pending": ["limit", "offset"],
  "/v1/organization_roles": namesIn(ROLE_LIST as ListSpec<unknown>),
  "/v1/organization_roles/:roleId": [],
  "/v1/organization_permissions": namesIn(PERMISSION_LIST as ListSpec<unknown>),
  "/v1/organization_permissions/:permissionId": [],
  "/v1/sessions": namesIn(SESSION_LIST as ListSpec<unknown>),
  "/v1/sessions/:id": [],
  "/v1/phone_numbers/:id": [],
  "/v1/users/:id/trusted_devices": [],
  "/v1/email_addresses/:id": [],
  "/v1/allowlist_identifiers": ["paginated", "limit", "offset"],
  "/v1/blocklist_identifiers": [],
  // Not in Clerk's description (contract/allowlist.ts); @clerk/backend sends the nonce.
  "/v1/clients/handshake_payload": ["nonce"],
  "/v1/jwt_templates": ["paginated", "limit", "offset"],
  "/v1/jwt_templates/:id": [],
  "/v1/clients": ["paginated", "limit", "offset"],
  "/v1/clients/:id": [],
  "/v1/sign_ups/:id": [],
  ...INSTANCE_QUERY_PARAMS,
};

/** Clerk's answer to a parameter it does not know (`FormUnknownParameter`: 422, `form_param_unknown`). */
export function unknownParameter(name: string, why?: string): ApiError {
  return new ApiError(
    422,
    "form_param_unknown",
    "is unknown",
    name,
    `${name} is not a valid parameter for this request.${why ? ` ${why}` : ""}`,
  );
}

/** Refuses the first query parameter `known` does not name. */
export function refuseUnknownQueryParams(req: Request, known: readonly string[]): void {
  for (const name of Object.keys(req.query)) {
    if (!known.includes(name)) throw unknownParameter(name);
  }
}

/**
 * A registrar whose GETs refuse any query parameter `table` does not name for
 * them; a GET with no entry cannot be registered (it throws), so a new list
 * endpoint cannot ignore a filter.
 */
export function withDeclaredQueryParams(
  register: Route,
  table: Readonly<Record<string, readonly string[]>> = BACKEND_QUERY_PARAMS,
): Route {
  return (method, pattern, handler) => {
    if (method !== "GET") return register(method, pattern, handler);
    const known = table[pattern];
    if (!known) {
      throw new Error(
        `Backend API GET ${pattern}: name its query parameters in packages/clerk-emulator/src/backend/query-params.ts`,
      );
    }
    register(method, pattern, (req, res) => {
      refuseUnknownQueryParams(req, known);
      return handler(req, res);
    });
  };
}

/** The items every filter given in the query keeps. */
export function filterList<T>(spec: ListSpec<T>, req: Request, store: Store, items: readonly T[]): T[] {
  const tests = Object.entries(spec.filters)
    .filter(([name]) => req.query[name] !== undefined)
    .map(([name, filter]) => filter(valuesOf(req.query[name]), store));
  return items.filter((item) => tests.every((keep) => keep(item)));
}

/**
 * Clerk's `order_by`: a field, `-` first for descending (`+` or nothing:
 * ascending). A field not in `fields` is Clerk's 422.
 */
export function orderBy<T>(
  req: Request,
  items: readonly T[],
  fields: Readonly<Record<string, (item: T) => string | number | null>>,
  fallback: string,
): T[] {
  const given = str(req.query.order_by) ?? fallback;
  const descending = given.startsWith("-");
  const field = given.replace(/^[+-]/, "");
  const key = fields[field];
  if (!key) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "order_by",
      `${given} does not match one of the allowed values for parameter order_by`,
    );
  }
  const compare = (a: T, b: T) => {
    const x = key(a);
    const y = key(b);
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  };
  return [...items].sort((a, b) => (descending ? compare(b, a) : compare(a, b)));
}

/** `limit` and `offset` as Clerk reads them (10 and 0 by default, at most 500). */
export function page<T>(req: Request, items: readonly T[]): T[] {
  const limit = clampInt(req.query.limit, 10, 1, 500);
  const offset = clampInt(req.query.offset, 0, 0, 1_000_000);
  return items.slice(offset, offset + limit);
}

/**
 * A list's page in the shape asked for: with `paginated=true` (which
 * @clerk/backend's list methods always send) Clerk answers
 * `{ data, total_count }`, the count being of the whole filtered list;
 * without, the bare array Clerk's OpenAPI describes. contract/allowlist.ts
 * has the evidence.
 */
export function pagedAnswer<T>(req: Request, items: T[], toJSON: (item: T) => unknown) {
  const data = page(req, items).map(toJSON);
  return valuesOf(req.query.paginated).at(-1) === "true" ? { data, total_count: items.length } : data;
}
