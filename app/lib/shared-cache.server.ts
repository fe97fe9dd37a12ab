import { groupNamedBy, groupOf, type CacheStore, type Generation, type Stored } from "./cache-store.server";
import { logEvent } from "./log.server";
import { createShortCache, type ShortCache } from "./short-cache.server";
import { isUnavailable, keepingCallSite } from "./upstream/request-scope.server";

export { memoryStore, type CacheStore, type Generation, type Stored } from "./cache-store.server";

/**
 * hit: a copy within its fresh lifetime; miss: read from Clerk; stale: an
 * older copy shown because Clerk could not answer; too_old_to_authorize: Clerk
 * could not answer and the only copy, past its fresh lifetime, would have
 * said who may see an organization, so nothing was answered.
 */
export type LookupResult = "hit" | "miss" | "stale" | "too_old_to_authorize";

/**
 * A ShortCache whose answers are also kept in a store (Redis) shared by every
 * instance, so a forget must also reach the store.
 */
export type SharedCache<Value> = ShortCache<Value> & {
  /**
   * Where the cache stands in its forgets: a `set` given an earlier mark is dropped if its key's group was
   * forgotten here since, and kept for the other instances only if nothing of the cache was forgotten anywhere.
   */
  mark(): number;
  /** Resolves once the store has carried out every forget and clear asked of this cache so far; rejects if it could not. */
  forgotten(): Promise<void>;
  /**
   * Forgets this instance's copies only: for a change another instance has
   * already dropped from the store (moving its generation on, which refuses
   * any write of a read begun here before it).
   */
  here: Pick<ShortCache<Value>, "forget" | "clear">;
};

/** How long a kept answer that only displays may stand in for one Clerk cannot give (429 or 5xx after the retries). */
export const STALE_FOR_MS = 10 * 60_000;

/** How many groups an instance remembers having forgotten (past that, the oldest's forget counts for every group). */
const REMEMBERED_GROUPS = 10_000;

/**
 * A cache of Backend API answers (the app's own small shapes) in two levels:
 * - this instance's, for `localTtlMs`: concurrent misses for a key share one
 *   read, and a failed read is not kept;
 * - the store's, for `sharedTtlMs` (minutes where Clerk's webhooks say what
 *   changed, else seconds), shared by all instances through Redis.
 * An answer is kept `STALE_FOR_MS` in all (or what `keepMs` says): when Clerk
 * is unavailable, a page gets the last answer up to 10 minutes old instead of
 * a 503, unless the cache `authorizes` (what it holds says who may see or
 * change something): such a copy counts only within its fresh lifetime,
 * whatever Clerk's state, and past it the lookup fails as Clerk's read did.
 */
export function createCache<Value>({
  name,
  localTtlMs,
  sharedTtlMs,
  authorizes = false,
  keepMs,
  store,
  onLookup = () => undefined,
  now = Date.now,
}: {
  name: string;
  localTtlMs: number;
  sharedTtlMs: number;
  /** Whether its answers grant access: then never served past `sharedTtlMs`, even when Clerk fails. */
  authorizes?: boolean;
  /** How long the store keeps an answer, when not the longer of `sharedTtlMs` and STALE_FOR_MS. */
  keepMs?: (key: string, value: Value) => number | undefined;
  store: CacheStore;
  onLookup?: (result: LookupResult) => void;
  now?: () => number;
}): SharedCache<Value> {
  const local = createShortCache<Value>({ ttlMs: localTtlMs, now, onLookup: (hit) => hit && onLookup("hit") });
  // What this instance forgot, as ticks of a counter: a read begun at tick t
  // is not written back if its group (or every group) was forgotten here
  // since. (The store refuses it if another instance forgot it meanwhile.)
  let ticks = 0;
  let everyGroupAt = 0;
  const groupAt = new Map<string, number>();
  const forgetHere = (group: string | null) => {
    const tick = ++ticks;
    if (group === null) return void (everyGroupAt = tick);
    groupAt.delete(group);
    groupAt.set(group, tick);
    if (groupAt.size <= REMEMBERED_GROUPS) return;
    // (Maps keep insertion order: the first is the longest ago.)
    const [oldest, at] = groupAt.entries().next().value as [string, number];
    groupAt.delete(oldest);
    everyGroupAt = Math.max(everyGroupAt, at);
  };
  const forgottenSince = (key: string, tick: number) => Math.max(everyGroupAt, groupAt.get(groupOf(key)) ?? 0) > tick;
  // The family's generation as last read here, and the tick it was first read
  // at: a value read with another (`set`) has no generation of its own read,
  // and is kept under the family's only if that was read before it was.
  let family: { generation: string; at: number } | null = null;
  const see = (generation: Generation) => {
    if (generation.family !== null && generation.family !== family?.generation) {
      family = { generation: generation.family, at: ++ticks };
    }
  };
  // The store's deletes under way, each settled to its error (or null): the
  // webhook path waits for them before telling the other instances, and
  // fails if one failed; a page's forget does not wait, and drops the error.
  const deleting = new Set<Promise<unknown>>();
  const deleteInStore = (work: Promise<void>) => {
    const failure = work.then(
      () => null,
      (error: unknown) => error ?? new Error("The store could not forget."),
    );
    deleting.add(failure);
    void failure.then(() => deleting.delete(failure));
  };

  const kept = (key: string, value: Value): Stored & { keepMs: number } => ({
    value,
    at: now(),
    keepMs: keepMs?.(key, value) ?? Math.max(sharedTtlMs, STALE_FOR_MS),
  });
  const write = (key: string, value: Value, generation: Generation) => {
    const { keepMs: ms, ...stored } = kept(key, value);
    void store.write(name, key, stored, ms, generation).catch(() => false);
  };

  async function readThrough(key: string, load: () => Promise<Value>): Promise<Value> {
    const read = await store.read(name, key).catch(() => null);
    if (read) see(read.generation);
    const stored = read?.stored ?? null;
    if (stored && now() - stored.at < sharedTtlMs) {
      onLookup("hit");
      return stored.value as Value;
    }
    // What the answer is kept under, set before Clerk is asked (none when the store cannot say).
    const complete = read && read.generation.group !== null && read.generation.family !== null;
    const generation = complete ? read.generation : read && (await store.start(name, key).catch(() => null));
    if (generation) see(generation);
    try {
      const since = ticks;
      const value = await load();
      onLookup("miss");
      if (generation && !forgottenSince(key, since)) write(key, value, generation);
      return value;
    } catch (error) {
      if (!stored || now() - stored.at >= STALE_FOR_MS || !isUnavailable(error)) throw error;
      const result = authorizes ? "too_old_to_authorize" : "stale";
      onLookup(result);
      logEvent(`cache_${result}`, { cache: name, age_s: Math.round((now() - stored.at) / 1000) });
      if (authorizes) throw error;
      return stored.value as Value;
    }
  }

  // This instance's copies only (what a change another instance dropped from the store leaves here).
  const here = {
    forget(key: string) {
      forgetHere(groupOf(key));
      local.forget(key);
    },
    clear(prefix = "") {
      forgetHere(groupNamedBy(prefix));
      local.clear(prefix);
    },
  };

  return {
    get: (key, load) => local.get(key, () => keepingCallSite(() => readThrough(key, load))),
    set(key, value, mark = ticks) {
      // Read before its group was forgotten here: it may be what Clerk said before the change.
      if (forgottenSince(key, mark)) return;
      local.set(key, value);
      if (!family || family.at > mark) return;
      const { keepMs: ms, ...stored } = kept(key, value);
      void store.writeIfQuiet(name, key, stored, ms, family.generation).catch(() => false);
    },
    // This instance's copies go before the store's and again once the store is done: on a Redis
    // Cluster the store moves generations in several round trips, and a read here between them can
    // find the old answer still current (the group's generation not yet moved) and keep it.
    forget(key) {
      here.forget(key);
      deleteInStore(store.delete(name, key).finally(() => here.forget(key)));
    },
    clear(prefix = "") {
      here.clear(prefix);
      deleteInStore(store.clear(name, prefix).finally(() => here.clear(prefix)));
    },
    here,
    mark: () => ticks,
    async forgotten() {
      const failed = (await Promise.all(deleting)).find((failure) => failure !== null);
      if (failed !== undefined) throw failed;
    },
  };
}
