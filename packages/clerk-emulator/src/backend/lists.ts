import type { Request } from "express";
import { fullName } from "../domain/public-profile";
import { ApiError, valueNotAllowed } from "../domain/errors";
import { clampInt, str, valuesOf } from "../http/routing";
import type { MembershipRecord, Store, UserRecord } from "../state/store";

/**
 * What the Backend API's lists share: their filters (each a function, so a
 * filter that is declared is also applied: one on an attribute the emulator
 * does not keep, web3 wallets or external accounts, keeps nobody, as Clerk
 * would answer on an instance where nobody has one), their order and their
 * pages. Each list's own spec lives in its module, and its names are the
 * `query` its route declares (`listParams`).
 */

/** One filter: given the values asked for, which items it keeps. */
export type Filter<T> = (values: string[], store: Store) => (item: T) => boolean;

export type ListSpec<T> = {
  /** Query parameters that narrow the list. */
  filters: Readonly<Record<string, Filter<T>>>;
  /** The others, which the endpoint reads itself: paging, order, answer shape. */
  options: readonly string[];
};

export const lower = (values: string[]) => values.map((v) => v.trim().toLowerCase());

/** Clerk's `+id` / `-id`: an id kept, or left out; with only exclusions, everything else is kept. */
export const includeExclude = (values: string[], idsOf: (item: string) => string[]) => {
  const include = values.filter((v) => !v.startsWith("-")).map((v) => v.replace(/^\+/, ""));
  const exclude = values.filter((v) => v.startsWith("-")).map((v) => v.slice(1));
  return (item: string) => {
    const ids = idsOf(item);
    if (exclude.some((id) => ids.includes(id))) return false;
    return include.length === 0 || include.some((id) => ids.includes(id));
  };
};

/** An attribute no record has: asked for, it keeps nothing. */
export const noneHave =
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
export const before =
  <T>(name: string, at: (item: T, store: Store) => number | null): Filter<T> =>
  (values, store) => {
    const t = timestamp(name, values);
    return (item) => {
      const value = at(item, store);
      return value !== null && value < t;
    };
  };
export const after =
  <T>(name: string, at: (item: T, store: Store) => number | null): Filter<T> =>
  (values, store) => {
    const t = timestamp(name, values);
    return (item) => {
      const value = at(item, store);
      return value !== null && value > t;
    };
  };

/** A case-insensitive partial match of `texts` against the (last) value given; an empty one keeps all. */
export const partial =
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
export function userFilters(): Record<string, Filter<UserRecord>> {
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

/** A membership's filters are its user's, plus its own. */
export const onMember =
  (filter: Filter<UserRecord>): Filter<MembershipRecord> =>
  (values, store) => {
    const keep = filter(values, store);
    return (m) => {
      const user = store.user(m.userId);
      return user !== null && keep(user);
    };
  };

/** Clerk's `query` on roles and permissions: the id exactly, the name or key in part. */
export const idNameOrKey =
  <T extends { id: string; name: string; key: string }>(): Filter<T> =>
  (values) => {
    const wanted = (values[values.length - 1] ?? "").trim();
    const text = wanted.toLowerCase();
    return (item) =>
      !wanted || item.id === wanted || item.name.toLowerCase().includes(text) || item.key.toLowerCase().includes(text);
  };

/** The query parameters a list takes: its filters and its options, what its route declares. */
export const listParams = <T>(spec: ListSpec<T>): string[] => [...Object.keys(spec.filters), ...spec.options];

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
  if (!key) throw valueNotAllowed("order_by", given);
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
