import { NO_METRICS, type AppMetrics } from "../metrics.server";
import { createCache, memoryStore, type CacheStore, type SharedCache } from "../shared-cache.server";
import { memberPageKeptMs, type MemberPage, type PendingInvitation } from "./members.server";
import type { MyMembership } from "./memberships.server";
import type { KeptInvitation } from "./my-invitations.server";
import type { Member, OrgSummary } from "./organizations";

export type OrgProfile = Omit<OrgSummary, "role">;
export type LatestMembers = { members: Member[]; total: number };

/**
 * What pages read from Clerk again and again (shared by every instance when
 * Redis is there, see shared-cache.server): never shared between people where
 * it is theirs (memberships, invitations: by user id), forgotten on this
 * instance's own writes and, where Clerk's webhooks are configured, on
 * Clerk's word of a change anywhere.
 */
export type OrgCaches = {
  /** A person's memberships (organization id and role), by user id. Authorizes: never served past its fresh lifetime. */
  memberships: SharedCache<MyMembership[]>;
  /** An organization's name, image and member count, by organization id. Displays: may stand in while Clerk fails. */
  profiles: SharedCache<OrgProfile>;
  /** An organization's newest members and member count, by organization id. Displays, to members just confirmed. */
  latestMembers: SharedCache<LatestMembers>;
  /**
   * Pages of an organization's member directory, by `<organization id>|<page>|<query>`. Displays, to members just
   * confirmed. Searches and pages past the last are kept in Redis only briefly (members.server, memberPageKeptMs).
   */
  memberPages: SharedCache<MemberPage>;
  /** An organization's pending invitations, by `<organization id>|` (`<organization id>|links` with their links). Displays, to members just confirmed. */
  pendingInvitations: SharedCache<PendingInvitation[]>;
  /** The invitations waiting for a person, by user id (the organizations' names come from `profiles`). Displays: accepting one asks Clerk. */
  invitations: SharedCache<KeptInvitation[]>;
  /** Whose memberships Clerk's webhooks said changed, and when: the session tokens they had then name a role or an organization that may be gone. */
  membershipChanges: ChangeLog;
  /**
   * Whether a person's memberships may be read from Clerk again before a 404
   * (they may have joined on another instance, or in Clerk's components, a
   * moment ago): once per 10 s each, so made-up addresses cost Clerk little.
   */
  mayRereadMemberships(userId: string): boolean;
};

/** A yes for each key at most once per `everyMs`, remembering at most `maxKeys` keys. */
export function createThrottle({
  everyMs,
  maxKeys = 10_000,
  now = Date.now,
}: {
  everyMs: number;
  maxKeys?: number;
  now?: () => number;
}) {
  const last = new Map<string, number>();
  return (key: string): boolean => {
    const at = now();
    if ((last.get(key) ?? -Infinity) > at - everyMs) return false;
    if (last.size >= maxKeys) for (const [k, t] of last) if (t <= at - everyMs) last.delete(k);
    // Still full: the oldest goes (Maps keep insertion order).
    if (last.size >= maxKeys) last.delete(last.keys().next().value as string);
    last.delete(key);
    last.set(key, at);
    return true;
  };
}

/**
 * When a person's memberships last changed, by user id, kept as long as a
 * session token lives (and then some). `forget` and `clear` take the same
 * keys as the caches: from now on, the person's (everyone's) older tokens'
 * claims are not to be trusted.
 */
export type ChangeLog = {
  forget(userId: string): void;
  clear(prefix?: string): void;
  /** Whether the person's memberships changed after `at` (ms since the epoch). */
  changedSince(userId: string, at: number): boolean;
};

export function createChangeLog({ keepMs = 120_000, now = Date.now } = {}): ChangeLog {
  const changes = new Map<string, number>();
  let everyone = 0;
  return {
    forget(userId) {
      const at = now();
      for (const [key, time] of changes) if (time < at - keepMs) changes.delete(key);
      changes.set(userId, at);
    },
    clear() {
      everyone = now();
    },
    changedSince(userId, at) {
      return Math.max(changes.get(userId) ?? 0, everyone) > at;
    },
  };
}

/** Seconds each cache keeps an answer on its own; minutes where Clerk's webhooks say what changed. */
const LIFETIMES_MS = {
  memberships: 2_000,
  profiles: 5_000,
  latestMembers: 5_000,
  memberPages: 2_000,
  pendingInvitations: 2_000,
  invitations: 2_000,
};
const WITH_WEBHOOKS_MS = 5 * 60_000;

export function createOrgCaches({
  metrics = NO_METRICS,
  store = memoryStore(),
  webhooks = false,
}: { metrics?: AppMetrics; store?: CacheStore; webhooks?: boolean } = {}): OrgCaches {
  const cache = <Value>(name: keyof typeof LIFETIMES_MS, keepMs?: (key: string, value: Value) => number | undefined) =>
    createCache<Value>({
      name,
      localTtlMs: LIFETIMES_MS[name],
      sharedTtlMs: webhooks ? WITH_WEBHOOKS_MS : LIFETIMES_MS[name],
      authorizes: name === "memberships",
      keepMs,
      store,
      onLookup: (result) => metrics.cacheLookup(name, result),
    });
  return {
    memberships: cache("memberships"),
    profiles: cache("profiles"),
    latestMembers: cache("latestMembers"),
    memberPages: cache("memberPages", memberPageKeptMs),
    pendingInvitations: cache("pendingInvitations"),
    invitations: cache("invitations"),
    membershipChanges: createChangeLog(),
    mayRereadMemberships: createThrottle({ everyMs: 10_000 }),
  };
}

/** What a Clerk webhook can make an instance forget: the caches, and the log of membership changes. */
type Forgettable = Exclude<keyof OrgCaches, "mayRereadMemberships">;
/** A key of one of those, or every key with a prefix ("": all of them). */
export type CacheKey = { cache: Forgettable; key: string } | { cache: Forgettable; prefix: string };

/** Forgets the keys on this instance only: another has dropped them from the shared store (a webhook it received). */
export function forgetKeysHere(caches: OrgCaches, keys: CacheKey[]): void {
  for (const entry of keys) {
    const cache = caches[entry.cache];
    const here = "here" in cache ? cache.here : cache;
    if ("prefix" in entry) here.clear(entry.prefix);
    else here.forget(entry.key);
  }
}

/** Forgets the keys here and in the shared store; resolves once the store has dropped them, rejects if it could not. */
export async function forgetKeys(caches: OrgCaches, keys: CacheKey[]): Promise<void> {
  for (const entry of keys) {
    if ("prefix" in entry) caches[entry.cache].clear(entry.prefix);
    else caches[entry.cache].forget(entry.key);
  }
  await Promise.all(
    keys.map(({ cache }) => caches[cache]).map((cache) => ("forgotten" in cache ? cache.forgotten() : null)),
  );
}

/** The fields of a Clerk webhook event's `data` that say which cached answers it changes. */
type EventData = {
  id?: unknown;
  organization?: { id?: unknown };
  organization_id?: unknown;
  email_address?: unknown;
  public_user_data?: { user_id?: unknown };
};

/**
 * A cached answer an event changes; or, found by the caller, the address of
 * a person whose invitations it changes, or a person whose organizations'
 * member lists show them.
 */
export type TouchedKey = CacheKey | { invitee: string } | { memberOf: string };

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * The cached answers a Clerk webhook event changes, and nothing else; null
 * for an event these caches do not depend on. Where the event names no key
 * and none can be found (a deleted person's organizations), that cache's
 * keys are all forgotten.
 */
export function keysTouchedBy(type: string, data: EventData): TouchedKey[] | null {
  const [resource, action] = type.split(".");
  const everything = (cache: Forgettable): CacheKey => ({ cache, prefix: "" });
  // What an organization's own pages show of it.
  const organization = (orgId: string): CacheKey[] => [
    { cache: "profiles", key: orgId },
    { cache: "latestMembers", key: orgId },
    { cache: "memberPages", prefix: `${orgId}|` },
  ];
  switch (resource) {
    case "organization": {
      const orgId = text(data.id);
      // A new organization is in nobody's kept list yet: its creator's membership event says so.
      // (Members' lists keep organization ids; names come from the profile.)
      if (!orgId || action === "created") return [];
      // (Invitations name it from its profile.)
      if (action === "updated") return organization(orgId);
      // Deleted: Clerk sends no event for the memberships that went with it,
      // and a kept list naming it would ask Clerk for it at every view.
      return [...organization(orgId), { cache: "pendingInvitations", prefix: `${orgId}|` }, everything("memberships")];
    }
    case "organizationMembership": {
      const orgId = text(data.organization?.id);
      const userId = text(data.public_user_data?.user_id);
      // A changed role or an ended membership: the person's session tokens' claims are out of date.
      // (A new membership makes no token's claims wrong.)
      const caches =
        action === "created" ? (["memberships"] as const) : (["memberships", "membershipChanges"] as const);
      return [
        ...(orgId ? organization(orgId) : []),
        ...caches.map((cache) => (userId ? { cache, key: userId } : everything(cache))),
      ];
    }
    case "organizationInvitation": {
      const orgId = text(data.organization_id);
      const email = text(data.email_address);
      return [
        orgId ? { cache: "pendingInvitations", prefix: `${orgId}|` } : everything("pendingInvitations"),
        email ? { invitee: email } : everything("invitations"),
      ];
    }
    case "user": {
      const userId = text(data.id);
      if (!userId || action === "created") return [];
      // A new address may have invitations waiting; a name or picture shows in their organizations' member lists.
      if (action === "updated") return [{ cache: "invitations", key: userId }, { memberOf: userId }];
      // Deleted: their memberships may be gone from Clerk already, so every member list, and member counts.
      return [
        { cache: "memberships", key: userId },
        { cache: "invitations", key: userId },
        everything("latestMembers"),
        everything("memberPages"),
        everything("profiles"),
      ];
    }
    default:
      return null;
  }
}
