import { NO_METRICS, type AppMetrics } from "../metrics.server";
import { createShortCache, type ShortCache } from "../short-cache.server";
import type { Member, MyInvitation, OrgSummary } from "./organizations";

export type OrgProfile = Omit<OrgSummary, "role">;
export type LatestMembers = { members: Member[]; total: number };

/**
 * What pages read from Clerk again and again, kept a few seconds on this
 * instance: never shared between people where it is theirs (memberships are
 * per user), forgotten on this instance's own writes.
 */
export type OrgCaches = {
  /** A person's organizations, by user id. */
  memberships: ShortCache<OrgSummary[]>;
  /** An organization's name, image and member count, by organization id. */
  profiles: ShortCache<OrgProfile>;
  /** An organization's newest members and member count, by organization id. */
  latestMembers: ShortCache<LatestMembers>;
  /** The invitations waiting for a person, by user id. */
  invitations: ShortCache<MyInvitation[]>;
};

export function createOrgCaches(metrics: AppMetrics = NO_METRICS): OrgCaches {
  const counted = (cache: keyof OrgCaches) => (hit: boolean) => metrics.cacheLookup(cache, hit);
  return {
    memberships: createShortCache({ ttlMs: 2_000, onLookup: counted("memberships") }),
    profiles: createShortCache({ ttlMs: 5_000, onLookup: counted("profiles") }),
    latestMembers: createShortCache({ ttlMs: 5_000, onLookup: counted("latestMembers") }),
    invitations: createShortCache({ ttlMs: 2_000, onLookup: counted("invitations") }),
  };
}
