import { orgKey } from "./keys";

/** The tombstone of an organization itself, beside its memberships' (`ended(orgId, WHOLE_ORGANIZATION, at)`). */
export const WHOLE_ORGANIZATION = "*";

/**
 * Who has memberships kept that name an organization: organization id →
 * user ids, recorded as the memberships cache keeps a person's list. Clerk's
 * `organization.deleted` says nothing of the memberships that went with it,
 * and a kept list naming a deleted organization asks Clerk for it at every
 * view: through this, its deletion touches only its members' lists, never
 * everyone's (which anyone could make happen at will, by creating and
 * deleting an organization of their own in Clerk's components).
 *
 * Best effort, and only ever too wide: a user id stays after they leave
 * (their list is then patched for nothing); one lost (Redis failing, or
 * this instance's bound reached) leaves their kept list naming the deleted
 * organization until it expires, which shows them nothing more (the
 * organization's profile is gone from Clerk) and costs a read per view.
 *
 * It also remembers, briefly, memberships that ended (Clerk's
 * `organizationMembership.deleted`), so that the event of their creation,
 * delivered late, does not bring them back into a kept list.
 */
export type MembershipIndex = {
  /** Records that `userId`'s kept memberships name these organizations. */
  add(userId: string, orgIds: string[]): Promise<void>;
  /** The users whose kept memberships may name the organization (kept after its deletion: a retried delivery finds them again). */
  membersOf(orgId: string): Promise<string[]>;
  /** Records that the membership ended, as of `at` (Clerk's time, ms since the epoch). */
  ended(orgId: string, userId: string, at: number): Promise<void>;
  /** When the membership last ended, if it did lately (null if not known to). */
  endedAt(orgId: string, userId: string): Promise<number | null>;
};

/**
 * How long the index keeps a user id: longer than the memberships cache
 * keeps any answer (its store keeps them 10 minutes at most, see
 * shared-cache.server STALE_FOR_MS).
 */
export const INDEX_KEPT_MS = 15 * 60_000;
/** How long an ended membership is remembered: longer than Svix's first retries of an earlier event (5 s, 5 min). */
export const ENDED_KEPT_MS = 10 * 60_000;

/**
 * The index of a single instance (no Redis), in memory: at most `maxPairs`
 * (organization, user) pairs and `maxEnded` ended memberships, the oldest
 * going first past that.
 */
export function memoryMembershipIndex({
  maxPairs = 100_000,
  maxEnded = 10_000,
  now = Date.now,
}: { maxPairs?: number; maxEnded?: number; now?: () => number } = {}): MembershipIndex {
  // Maps keep insertion order: an organization re-added moves to the end, the first is the oldest.
  const members = new Map<string, { users: Set<string>; until: number }>();
  let pairs = 0;
  const ends = new Map<string, { at: number; until: number }>();
  const drop = (orgId: string) => {
    const entry = members.get(orgId);
    if (!entry) return null;
    members.delete(orgId);
    pairs -= entry.users.size;
    return entry;
  };
  return {
    async add(userId, orgIds) {
      const at = now();
      for (const orgId of orgIds) {
        const entry = drop(orgId);
        const users = entry && entry.until > at ? entry.users : new Set<string>();
        users.add(userId);
        members.set(orgId, { users, until: at + INDEX_KEPT_MS });
        pairs += users.size;
      }
      while (pairs > maxPairs && members.size > 1) drop(members.keys().next().value as string);
    },
    async membersOf(orgId) {
      const entry = members.get(orgId);
      return entry && entry.until > now() ? [...entry.users] : [];
    },
    async ended(orgId, userId, at) {
      const key = orgKey(orgId, userId);
      // Deliveries come in any order: the later end stands.
      const later = Math.max(at, ends.get(key)?.at ?? at);
      ends.delete(key);
      if (ends.size >= maxEnded) ends.delete(ends.keys().next().value as string);
      ends.set(key, { at: later, until: now() + ENDED_KEPT_MS });
    },
    async endedAt(orgId, userId) {
      const entry = ends.get(orgKey(orgId, userId));
      return entry && entry.until > now() ? entry.at : null;
    },
  };
}
