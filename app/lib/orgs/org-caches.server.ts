import { NO_METRICS, type AppMetrics } from "../metrics.server";
import { createCache, memoryStore, type CacheStore } from "../shared-cache.server";
import type { ShortCache } from "../short-cache.server";
import type { MemberPage, PendingInvitation } from "./members.server";
import type { MyMembership } from "./memberships.server";
import type { Member, MyInvitation, OrgSummary } from "./organizations";

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
  /** A person's memberships (organization id and role), by user id. */
  memberships: ShortCache<MyMembership[]>;
  /** An organization's name, image and member count, by organization id. */
  profiles: ShortCache<OrgProfile>;
  /** An organization's newest members and member count, by organization id. */
  latestMembers: ShortCache<LatestMembers>;
  /** Pages of an organization's member directory, by `<organization id>|<page>|<query>`. */
  memberPages: ShortCache<MemberPage>;
  /** An organization's pending invitations, by `<organization id>|` (`<organization id>|links` with their links). */
  pendingInvitations: ShortCache<PendingInvitation[]>;
  /** The invitations waiting for a person, by user id. */
  invitations: ShortCache<MyInvitation[]>;
  /** Whose memberships Clerk's webhooks said changed, and when: the session tokens they had then name a role or an organization that may be gone. */
  membershipChanges: ChangeLog;
};

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
  const cache = <Value>(name: keyof typeof LIFETIMES_MS) =>
    createCache<Value>({
      name,
      localTtlMs: LIFETIMES_MS[name],
      sharedTtlMs: webhooks ? WITH_WEBHOOKS_MS : LIFETIMES_MS[name],
      store,
      onLookup: (result) => metrics.cacheLookup(name, result),
    });
  return {
    memberships: cache("memberships"),
    profiles: cache("profiles"),
    latestMembers: cache("latestMembers"),
    memberPages: cache("memberPages"),
    pendingInvitations: cache("pendingInvitations"),
    invitations: cache("invitations"),
    membershipChanges: createChangeLog(),
  };
}

/** A key of one of the caches, or every key with a prefix ("": all of them). */
export type CacheKey = { cache: keyof OrgCaches; key: string } | { cache: keyof OrgCaches; prefix: string };

export function forgetKeys(caches: OrgCaches, keys: CacheKey[]): void {
  for (const entry of keys) {
    if ("prefix" in entry) caches[entry.cache].clear(entry.prefix);
    else caches[entry.cache].forget(entry.key);
  }
}

/** The fields of a Clerk webhook event's `data` that say which cached answers it changes. */
type EventData = {
  id?: unknown;
  organization?: { id?: unknown };
  organization_id?: unknown;
  email_address?: unknown;
  public_user_data?: { user_id?: unknown };
};

/** A cached answer an event changes, or the address of a person whose invitations it changes (found by the caller). */
export type TouchedKey = CacheKey | { invitee: string };

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * The cached answers a Clerk webhook event changes, and nothing else; null
 * for an event these caches do not depend on. Where the event does not name
 * a key (a person's name shows among the members of organizations a
 * `user.updated` does not list), that cache's keys are all forgotten.
 */
export function keysTouchedBy(type: string, data: EventData): TouchedKey[] | null {
  const [resource, action] = type.split(".");
  const everything = (cache: keyof OrgCaches): CacheKey => ({ cache, prefix: "" });
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
      return !orgId || action === "created" ? [] : organization(orgId);
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
      return [
        { cache: "memberships", key: userId },
        { cache: "invitations", key: userId },
        everything("latestMembers"),
        everything("memberPages"),
      ];
    }
    default:
      return null;
  }
}
