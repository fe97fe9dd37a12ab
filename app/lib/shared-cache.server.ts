import { logEvent } from "./log.server";
import { createShortCache, type ShortCache } from "./short-cache.server";
import { isUnavailable, keepingCallSite } from "./upstream/request-scope.server";

/** A kept answer and when it was read from Clerk (ms since the epoch). */
export type Stored = { value: unknown; at: number };

/**
 * Where answers are kept beyond this instance's few seconds: Redis, shared by
 * every instance, or this process's memory. Its failures are never an
 * answer's: a read that fails is a miss, a write or delete that fails is
 * dropped (the webhook path, which must reach the others, fails on its own).
 */
export type CacheStore = {
  read(key: string): Promise<Stored | null>;
  write(key: string, stored: Stored, keepMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Deletes every key that starts with `prefix`. */
  clear(prefix: string): Promise<void>;
};

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
  /** Where the cache stands in its forgets: a `set` given an earlier mark is dropped if anything was forgotten since. */
  mark(): number;
  /** Resolves once the store has carried out every forget and clear asked of this cache so far. */
  forgotten(): Promise<void>;
};

/** How long a kept answer that only displays may stand in for one Clerk cannot give (429 or 5xx after the retries). */
export const STALE_FOR_MS = 10 * 60_000;

/**
 * A cache of Backend API answers (the app's own small shapes) in two levels:
 * - this instance's, for `localTtlMs`: concurrent misses for a key share one
 *   read, and a failed read is not kept;
 * - the store's, for `sharedTtlMs` (minutes where Clerk's webhooks say what
 *   changed, else seconds), shared by all instances through Redis.
 * An answer is kept `STALE_FOR_MS` in all: when Clerk is unavailable, a page
 * gets the last answer up to 10 minutes old instead of a 503, unless the
 * cache `authorizes` (what it holds says who may see or change something):
 * such a copy counts only within its fresh lifetime, whatever Clerk's state,
 * and past it the lookup fails as Clerk's read did.
 */
export function createCache<Value>({
  name,
  localTtlMs,
  sharedTtlMs,
  authorizes = false,
  store,
  onLookup = () => undefined,
  now = Date.now,
}: {
  name: string;
  localTtlMs: number;
  sharedTtlMs: number;
  /** Whether its answers grant access: then never served past `sharedTtlMs`, even when Clerk fails. */
  authorizes?: boolean;
  store: CacheStore;
  onLookup?: (result: LookupResult) => void;
  now?: () => number;
}): SharedCache<Value> {
  const local = createShortCache<Value>({ ttlMs: localTtlMs, now, onLookup: (hit) => hit && onLookup("hit") });
  const keyOf = (key: string) => `${name}:${key}`;
  // Counts forgets: a read that was under way when something was forgotten
  // may hold what Clerk said before the change, so it is not kept for others.
  let forgets = 0;
  // The store's deletes under way: the webhook path waits for them before telling the other instances.
  const deleting = new Set<Promise<void>>();
  const deleteInStore = (work: Promise<void>) => {
    const done = work.catch(() => undefined);
    deleting.add(done);
    void done.then(() => deleting.delete(done));
  };

  async function readThrough(key: string, load: () => Promise<Value>): Promise<Value> {
    const stored = await store.read(keyOf(key)).catch(() => null);
    if (stored && now() - stored.at < sharedTtlMs) {
      onLookup("hit");
      return stored.value as Value;
    }
    try {
      const forgetsBefore = forgets;
      const value = await load();
      onLookup("miss");
      if (forgets === forgetsBefore) write(key, value);
      return value;
    } catch (error) {
      if (!stored || now() - stored.at >= STALE_FOR_MS || !isUnavailable(error)) throw error;
      if (authorizes) {
        onLookup("too_old_to_authorize");
        logEvent("cache_too_old_to_authorize", { cache: name, age_s: Math.round((now() - stored.at) / 1000) });
        throw error;
      }
      onLookup("stale");
      logEvent("cache_stale", { cache: name, age_s: Math.round((now() - stored.at) / 1000) });
      return stored.value as Value;
    }
  }

  const write = (key: string, value: Value) =>
    void store.write(keyOf(key), { value, at: now() }, Math.max(sharedTtlMs, STALE_FOR_MS)).catch(() => undefined);

  // (Every instance told of a change deletes the shared copy too: one that
  // was written from a read under way on that instance goes as well.)
  return {
    get: (key, load) => local.get(key, () => keepingCallSite(() => readThrough(key, load))),
    set(key, value, mark) {
      // Read before something was forgotten: it may be what Clerk said before the change.
      if (mark !== undefined && mark !== forgets) return;
      local.set(key, value);
      write(key, value);
    },
    forget(key) {
      forgets++;
      local.forget(key);
      deleteInStore(store.delete(keyOf(key)));
    },
    clear(prefix = "") {
      forgets++;
      local.clear(prefix);
      deleteInStore(store.clear(keyOf(prefix)));
    },
    mark: () => forgets,
    async forgotten() {
      await Promise.all(deleting);
    },
  };
}

/** The store of a single instance: this process's memory, at most `maxEntries` answers. */
export function memoryStore({ maxEntries = 5_000, now = Date.now } = {}): CacheStore {
  const entries = new Map<string, { stored: Stored; until: number }>();
  return {
    async read(key) {
      const entry = entries.get(key);
      return entry && entry.until > now() ? entry.stored : null;
    },
    async write(key, stored, keepMs) {
      entries.delete(key);
      // Maps keep insertion order: the first key is the oldest written.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { stored, until: now() + keepMs });
    },
    async delete(key) {
      entries.delete(key);
    },
    async clear(prefix) {
      for (const key of entries.keys()) if (key.startsWith(prefix)) entries.delete(key);
    },
  };
}
