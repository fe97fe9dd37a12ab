import { memoryGoneSessions, type GoneSessions } from "../clerk/gone-sessions.server";
import { createExpiringKeys } from "../expiring-keys";
import { NO_METRICS, type AppMetrics } from "../metrics.server";
import { createCache, memoryStore, type CacheStore, type SharedCache } from "./shared-cache.server";
import { memoryMembershipIndex, WHOLE_ORGANIZATION, type MembershipIndex } from "./membership-index.server";
import {
  MEMBERS_PAGE_SIZE,
  type Member,
  type OrgSummary,
  type MemberPage,
  type PendingInvitation,
  type MyMembership,
  type KeptInvitation,
} from "../orgs/organizations";

/** `updatedAt`: Clerk's time of the organization's last change, where a webhook's payload wrote it (webhook-changes). */
export type OrgProfile = Omit<OrgSummary, "role"> & { updatedAt?: number };
export type LatestMembers = { members: Member[]; total: number };

/**
 * What pages read from Clerk again and again (shared by every instance when
 * Redis is there, see shared-cache.server): never shared between people where
 * it is theirs (memberships, invitations: by user id), forgotten on this
 * instance's own writes and, where Clerk's webhooks are configured, written
 * anew or forgotten on Clerk's word of a change anywhere (webhook-changes).
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
  /** Whose kept memberships name each organization (fed as memberships are kept): an organization's deletion reaches only them. */
  membershipIndex: MembershipIndex;
  /** Sessions and people Clerk's webhooks said are gone: their tokens spend nothing of their owners' (clerk/gone-sessions). */
  goneSessions: GoneSessions;
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
  const recent = createExpiringKeys({ max: maxKeys, now });
  return (key: string): boolean => recent.addIfAbsent(key, everyMs);
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

/**
 * How long Redis keeps a search's answer (any query) or a page past the
 * directory's last: moments, for a reload or the next page view on another
 * instance, and never as a stand-in when Clerk fails. A query or a page
 * number is whatever a URL says, so each could otherwise leave an answer in
 * Redis for 10 minutes; the directory's own pages are few and every member's.
 */
export const SEARCH_KEPT_MS = 30_000;

/** memberPages' `keepMs`: SEARCH_KEPT_MS for a search or a page past the last, else the cache's own (undefined). */
export function memberPageKeptMs(key: string, { total }: MemberPage): number | undefined {
  const [, page, ...query] = key.split("|"); // (orgKey(orgId, page, query): keys.ts)
  const lastPage = Math.max(1, Math.ceil(total / MEMBERS_PAGE_SIZE));
  return query.join("|") === "" && Number(page) <= lastPage ? undefined : SEARCH_KEPT_MS;
}

/** Seconds each cache keeps an answer on its own; minutes where Clerk's webhooks say what changed. */
export const LIFETIMES_MS = {
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
  membershipIndex = memoryMembershipIndex(),
  goneSessions = memoryGoneSessions(),
}: {
  metrics?: AppMetrics;
  store?: CacheStore;
  webhooks?: boolean;
  /** Shared by every instance where the store is (Redis: app/lib/cache/redis-membership-index.server.ts). */
  membershipIndex?: MembershipIndex;
  /** Shared by every instance where the store is (Redis: app/lib/clerk/redis-gone-sessions.server.ts). */
  goneSessions?: GoneSessions;
} = {}): OrgCaches {
  const cache = <Value>(
    name: keyof typeof LIFETIMES_MS,
    keepMs?: (key: string, value: Value) => number | undefined,
    onKept?: (key: string, value: Value) => void,
  ) =>
    createCache<Value>({
      name,
      localTtlMs: LIFETIMES_MS[name],
      sharedTtlMs: webhooks ? WITH_WEBHOOKS_MS : LIFETIMES_MS[name],
      authorizes: name === "memberships",
      keepMs,
      store,
      onLookup: (result) => metrics.cacheLookup(name, result),
      onKept,
    });
  // Best effort (see membership-index.server): an id it misses costs reads, never access.
  const indexKept = (userId: string, list: MyMembership[]) =>
    void membershipIndex
      .add(
        userId,
        list.map((m) => m.orgId),
      )
      .catch(() => undefined);
  return {
    memberships: cache("memberships", undefined, indexKept),
    profiles: cache("profiles"),
    latestMembers: cache("latestMembers"),
    memberPages: cache("memberPages", memberPageKeptMs),
    pendingInvitations: cache("pendingInvitations"),
    invitations: cache("invitations"),
    membershipChanges: createChangeLog(),
    membershipIndex,
    goneSessions,
    mayRereadMemberships: createThrottle({ everyMs: 10_000 }),
  };
}

/**
 * Clerk answered that the organization is not there (a read's 404): its
 * tombstone, as its deletion's webhook leaves, so that a late event does not
 * write its profile or a membership of it back. Best effort, as the index is.
 */
export async function rememberOrganizationGone(
  caches: Pick<OrgCaches, "membershipIndex">,
  orgId: string,
  at = Date.now(),
): Promise<void> {
  await caches.membershipIndex.ended(orgId, WHOLE_ORGANIZATION, at).catch(() => undefined);
}

/** What a Clerk webhook can make an instance forget: the caches, and the log of membership changes. */
export const FORGETTABLE = [
  "memberships",
  "profiles",
  "latestMembers",
  "memberPages",
  "pendingInvitations",
  "invitations",
  "membershipChanges",
] as const satisfies readonly (keyof OrgCaches)[];
type Forgettable = (typeof FORGETTABLE)[number];
/** A key of one of those, or every key with a prefix ("": all of them). */
export type CacheKey = { cache: Forgettable; key: string } | { cache: Forgettable; prefix: string };
