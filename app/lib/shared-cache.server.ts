import { logEvent } from "./log.server";
import { createShortCache, type ShortCache } from "./short-cache.server";
import { isUnavailable, keepingCallSite } from "./upstream/request-scope.server";

/** A kept answer and when it was read from Clerk (ms since the epoch). */
export type Stored = { value: unknown; at: number };

/**
 * Where a family of keys (a cache's) stands in its forgets: moved on by each
 * forget or clear, before its keys go. null: the store keeps none (a Redis
 * that restarted or evicted it): a write under it is refused, and the store
 * starts one for the next read.
 */
export type Generation = string | null;

/**
 * Where answers are kept beyond this instance's few seconds: Redis, shared by
 * every instance, or this process's memory. Keys come in families (a cache's
 * name), each with a generation: a write is kept only if nothing of its
 * family was forgotten since it was read, so an answer Clerk gave before a
 * change is never written back after it, even by an instance that was not
 * told of the change (the channel that tells them can miss one: see
 * server/coordination.ts).
 */
export type CacheStore = {
  /** A kept answer and its family's generation, read together (one round trip). */
  read(family: string, key: string): Promise<{ stored: Stored | null; generation: Generation }>;
  /** Keeps the answer if its family is still at `generation`, atomically: whether it was kept. */
  write(family: string, key: string, stored: Stored, keepMs: number, generation: Generation): Promise<boolean>;
  /** Moves the family's generation on, then deletes the key. */
  delete(family: string, key: string): Promise<void>;
  /** Moves the family's generation on, then deletes every key of it that starts with `prefix`. */
  clear(family: string, prefix: string): Promise<void>;
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
  // The family's generation as this instance last read it (undefined: not
  // read yet), and a count of what may have changed since a read began: this
  // instance's forgets, and generations read that differ from the last one.
  // A read's answer is written back only if neither moved while Clerk was
  // asked; the store itself refuses it if another instance forgot meanwhile.
  let seen: Generation | undefined;
  let changes = 0;
  const see = (generation: Generation) => {
    if (generation === seen) return;
    seen = generation;
    changes++;
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

  async function readThrough(key: string, load: () => Promise<Value>): Promise<Value> {
    const read = await store.read(name, key).catch(() => null);
    if (read) see(read.generation);
    const stored = read?.stored ?? null;
    if (stored && now() - stored.at < sharedTtlMs) {
      onLookup("hit");
      return stored.value as Value;
    }
    try {
      const changesBefore = changes;
      const value = await load();
      onLookup("miss");
      // (Not written when the store could not be read: its generation is unknown.)
      if (read && changes === changesBefore) write(key, value, read.generation);
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

  const write = (key: string, value: Value, generation: Generation) =>
    void store
      .write(name, key, { value, at: now() }, Math.max(sharedTtlMs, STALE_FOR_MS), generation)
      .catch(() => false);

  // This instance's copies only (what a change another instance dropped from the store leaves here).
  const here = {
    forget(key: string) {
      changes++;
      local.forget(key);
    },
    clear(prefix = "") {
      changes++;
      local.clear(prefix);
    },
  };

  return {
    get: (key, load) => local.get(key, () => keepingCallSite(() => readThrough(key, load))),
    set(key, value, mark) {
      // Read before something was forgotten: it may be what Clerk said before the change.
      if (mark !== undefined && mark !== changes) return;
      local.set(key, value);
      // Under the generation last read (unchanged since the mark): a stale one only drops the write.
      if (seen !== undefined) write(key, value, seen);
    },
    forget(key) {
      here.forget(key);
      deleteInStore(store.delete(name, key));
    },
    clear(prefix = "") {
      here.clear(prefix);
      deleteInStore(store.clear(name, prefix));
    },
    here,
    mark: () => changes,
    async forgotten() {
      const failed = (await Promise.all(deleting)).find((failure) => failure !== null);
      if (failed !== undefined) throw failed;
    },
  };
}

/** The store of a single instance: this process's memory, at most `maxEntries` answers. */
export function memoryStore({ maxEntries = 5_000, now = Date.now } = {}): CacheStore {
  const entries = new Map<string, { stored: Stored; until: number }>();
  const generations = new Map<string, number>();
  const generationOf = (family: string) => String(generations.get(family) ?? 0);
  const moveOn = (family: string) => generations.set(family, (generations.get(family) ?? 0) + 1);
  return {
    async read(family, key) {
      const entry = entries.get(`${family}:${key}`);
      return { stored: entry && entry.until > now() ? entry.stored : null, generation: generationOf(family) };
    },
    async write(family, key, stored, keepMs, generation) {
      if (generation !== generationOf(family)) return false;
      entries.delete(`${family}:${key}`);
      // Maps keep insertion order: the first key is the oldest written.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(`${family}:${key}`, { stored, until: now() + keepMs });
      return true;
    },
    async delete(family, key) {
      moveOn(family);
      entries.delete(`${family}:${key}`);
    },
    async clear(family, prefix) {
      moveOn(family);
      for (const key of entries.keys()) if (key.startsWith(`${family}:${prefix}`)) entries.delete(key);
    },
  };
}
