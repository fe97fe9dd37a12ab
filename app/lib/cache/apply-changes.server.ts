import { WHOLE_ORGANIZATION } from "./membership-index.server";
import { FORGETTABLE, type CacheKey, type OrgCaches, type OrgProfile } from "./org-caches.server";
import { asForget, organizationPages, type CacheWrite, type Change } from "./webhook-changes.server";

/*
 * How a change reaches the kept answers of one instance and the shared
 * store: what it forgets, what it writes, and what it finds first (an
 * organization's members through the membership index, a deleted person's
 * organizations through their kept list). fleet.server tells the other
 * instances what was done here.
 */

/** A key to forget, naming one of this release's caches (what another instance's message may hold). */
export const isCacheKey = (entry: unknown): entry is CacheKey => {
  if (typeof entry !== "object" || entry === null) return false;
  const { cache, key, prefix } = entry as Record<string, unknown>;
  return (
    typeof cache === "string" &&
    (FORGETTABLE as readonly string[]).includes(cache) &&
    (typeof key === "string" || typeof prefix === "string")
  );
};

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

/** Writes the answer here and in the shared store (SharedCache.update). */
function write(caches: OrgCaches, change: CacheWrite): Promise<void> {
  // (Each cache's own `next`: the union of writes is one per cache.)
  const cache = caches[change.cache] as OrgCaches["profiles"];
  return cache.update(
    change.key,
    change.next as (current: OrgProfile | null, keptAt: number | null) => OrgProfile | null,
  );
}

/** The keys and writes a change stands for, found through the membership index and the kept memberships. */
async function expand(caches: OrgCaches, change: Change, asForgets: boolean): Promise<(CacheKey | CacheWrite)[]> {
  if ("organizationGone" in change) {
    const orgId = change.organizationGone;
    // Its tombstone: a late rename or membership event does not bring it back.
    await caches.membershipIndex.ended(orgId, WHOLE_ORGANIZATION, change.at);
    // Its members' kept lists drop it (it is gone for good: exact, whatever the order of deliveries).
    return (await caches.membershipIndex.membersOf(orgId)).map((userId): CacheWrite => ({
      cache: "memberships",
      key: userId,
      next: (current) => current?.filter((m) => m.orgId !== orgId) ?? null,
    }));
  }
  if ("everyMemberOf" in change) {
    // A membership event that names no person: its organization's members' lists (the index knows them), no one else's.
    const members = await caches.membershipIndex.membersOf(change.everyMemberOf);
    return members.flatMap((userId): CacheKey[] => [
      { cache: "memberships", key: userId },
      { cache: "membershipChanges", key: userId },
    ]);
  }
  if ("sessionGone" in change) {
    await caches.goneSessions.mark(change.sessionGone);
    return [];
  }
  if ("userGone" in change) {
    const userId = change.userGone;
    await caches.goneSessions.mark(userId);
    // Their kept list says where they showed (not read from Clerk: they are gone there); forgotten with it.
    let orgIds: string[] = [];
    await caches.memberships.update(userId, (current) => ((orgIds = current?.map((m) => m.orgId) ?? []), null));
    return [{ cache: "memberships", key: userId }, ...orgIds.flatMap(organizationPages)];
  }
  if ("membershipEnded" in change) {
    const { orgId, userId, at } = change.membershipEnded;
    await caches.membershipIndex.ended(orgId, userId, at);
    return [];
  }
  if ("unlessEnded" in change) {
    const { orgId, userId, since } = change.unlessEnded;
    const [ended, deleted] = await Promise.all([
      caches.membershipIndex.endedAt(orgId, userId),
      caches.membershipIndex.endedAt(orgId, WHOLE_ORGANIZATION),
    ]);
    // Ended (the membership, or the organization) after this change: a late delivery, whose answer must not come back.
    const forgets = asForgets || [ended, deleted].some((at) => at !== null && at >= since);
    return (await Promise.all(change.changes.map((inner) => expand(caches, inner, forgets)))).flat();
  }
  return "next" in change && asForgets ? [asForget(change)] : [change];
}

/**
 * Applies the changes here and in the shared store: what they forget, and
 * what they write from the event's payload (`asForgets`: each write becomes
 * the forget of its key, for a delivery that could not be claimed). Resolves
 * to the keys every other instance must drop its own copies of; rejects
 * when the store could not carry them out.
 */
export async function applyChanges(
  caches: OrgCaches,
  changes: Change[],
  { asForgets = false } = {},
): Promise<CacheKey[]> {
  const expanded = (await Promise.all(changes.map((change) => expand(caches, change, asForgets)))).flat();
  const forgets = expanded.filter((change): change is CacheKey => !("next" in change));
  const writes = expanded.filter((change): change is CacheWrite => "next" in change);
  await Promise.all([forgetKeys(caches, forgets), ...writes.map((change) => write(caches, change))]);
  return [...forgets, ...writes.map(asForget)];
}
