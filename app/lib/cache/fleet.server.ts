import { logEvent } from "../log.server";
import { applyChanges, forgetKeys, forgetKeysHere, isCacheKey } from "./apply-changes.server";
import { orgPrefix } from "./keys";
import type { CacheKey, OrgCaches } from "./org-caches.server";
import { changesOf, type Change, type Touched } from "./webhook-changes.server";

/**
 * What carries the caches' word to the other instances: a Redis channel
 * (server/coordination.ts), or nothing when this instance is alone.
 * `format`: the Redis key format the sender keeps its copies in (absent from
 * the first release's messages).
 */
export type Channel = {
  tell(keys: CacheKey[]): Promise<void>;
  onHeard(listener: (keys: unknown[], format: number | undefined) => void): void;
};

/** A Clerk event's changes, found but not yet made. */
export type EventChanges = {
  /**
   * Makes them here and in the shared store, then has every other instance
   * drop its own copies. `asForgets`: writes become forgets (a delivery that
   * could not be claimed may be applied twice, or out of order). Rejects
   * when Redis or Clerk (whose invitations, whose member lists) failed.
   */
  apply(options?: { asForgets?: boolean }): Promise<void>;
};

/** The shared caches as the whole fleet sees them: a change made here is made everywhere. */
export type FleetCaches = {
  /** Makes the changes here, in the store, and on every other instance (see EventChanges.apply). */
  apply(changes: Change[], options?: { asForgets?: boolean }): Promise<void>;
  /** Forgets the keys here, in the store, and on every other instance. */
  forget(keys: CacheKey[]): Promise<void>;
  /**
   * A verified Clerk event's changes (webhook-changes.server), or null when no
   * kept answer depends on it. `timestamp`: Clerk's, from the event's envelope.
   */
  ofEvent(type: string, data: Record<string, unknown>, meta: { timestamp: number | null }): EventChanges | null;
};

/**
 * The org caches with the fleet around them. With Redis, one instance
 * receives a webhook, makes its changes in the shared store and tells the
 * others, which drop their own copies. The channel delivers at most once:
 * an instance that misses a message serves its own copies until they expire
 * (seconds), and cannot write an older answer back to Redis (store.server,
 * generations).
 */
export function createFleetCaches(
  caches: OrgCaches,
  {
    channel,
    usersWithEmail,
    organizationsOf,
  }: {
    channel: Channel;
    /** The ids of the people with this address (an invitation's: whose invitations changed). */
    usersWithEmail: (email: string) => Promise<string[]>;
    /** The ids of a person's organizations (a changed person's: whose member lists show them). */
    organizationsOf: (userId: string) => Promise<string[]>;
  },
): FleetCaches {
  channel.onHeard((keys, format) => {
    if (!keys.every(isCacheKey)) return;
    // The sender has dropped the shared copies (its webhook fails otherwise), moving their
    // generation on: deleting them again would only refuse writes of fresh reads.
    if (format !== undefined) return forgetKeysHere(caches, keys);
    // A release of format 1 knows nothing of this format's copies: they are
    // dropped here (by each instance that hears it, during a rolling deploy).
    forgetKeys(caches, keys).catch((error: unknown) =>
      logEvent("warning", {
        component: "redis",
        message: `A change heard from an instance of the previous release could not be dropped from Redis (${String(error)}); its answers stay until their fresh lifetime ends.`,
      }),
    );
  });

  const apply: FleetCaches["apply"] = async (changes, options) => {
    // The shared copies go first (forgotten, or written anew): an instance told of the change must not
    // find the old ones in Redis. Told with the same message as a forget, which every release reads:
    // each drops its own copies, and this release's next read finds what was written.
    await channel.tell(await applyChanges(caches, changes, options));
  };

  /** What the event names by a person: the changes it stands for. */
  async function changesFor(touched: Touched): Promise<Change[]> {
    if ("invitee" in touched)
      return (await usersWithEmail(touched.invitee)).map((userId) => ({ cache: "invitations", key: userId }));
    if ("memberOf" in touched) {
      return (await organizationsOf(touched.memberOf)).flatMap((orgId): Change[] => [
        { cache: "latestMembers", key: orgId },
        { cache: "memberPages", prefix: orgPrefix(orgId) },
      ]);
    }
    return [touched];
  }

  return {
    apply,
    forget: (keys) => apply(keys),
    ofEvent(type, data, { timestamp }) {
      const touched = changesOf(type, data, { timestamp });
      if (!touched) return null;
      return {
        apply: async (options) => apply((await Promise.all(touched.map(changesFor))).flat(), options),
      };
    },
  };
}
