import { waiterCopy } from "../waiter-copy.server";

/**
 * Answers kept a few seconds per key (a user id, an organization id): a
 * document load and the browser's first data requests would otherwise read
 * the same thing from Clerk several times. Concurrent misses share one read;
 * a failed read is not kept. Callers forget a key after this instance's own
 * writes; other instances' writes show within the lifetime.
 */
export type ShortCache<Value> = {
  get(key: string, load: () => Promise<Value>): Promise<Value>;
  /**
   * Keeps a value read with another (an organization's profile, in a person's
   * list of memberships). `mark`: where a shared cache stood when that read
   * began (SharedCache.mark); the value is dropped if a forget came since.
   */
  set(key: string, value: Value, mark?: number): void;
  forget(key: string): void;
  /**
   * Forgets every key that starts with `prefix` (an organization's directory
   * pages), or every key (a change whose keys are not known here, e.g. a
   * person's invitations by email).
   */
  clear(prefix?: string): void;
};

export function createShortCache<Value>({
  ttlMs,
  maxEntries = 1_000,
  now = Date.now,
  onLookup = () => undefined,
}: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
  /** Each `get`: whether it was answered from the cache (a read in flight counts). */
  onLookup?: (hit: boolean) => void;
}): ShortCache<Value> {
  const entries = new Map<string, { expires: number; promise: Promise<Value> }>();

  function prune(at: number) {
    if (entries.size < maxEntries) return;
    for (const [key, entry] of entries) if (entry.expires <= at) entries.delete(key);
    // Still full of live entries: drop the oldest (Maps keep insertion order).
    for (const key of entries.keys()) {
      if (entries.size < maxEntries) break;
      entries.delete(key);
    }
  }

  return {
    get(key, load) {
      const at = now();
      const cached = entries.get(key);
      const hit = !!cached && cached.expires > at;
      onLookup(hit);
      if (hit) return waiterCopy(cached.promise);
      prune(at);
      const entry = { expires: at + ttlMs, promise: load() };
      entries.set(key, entry);
      entry.promise.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return waiterCopy(entry.promise);
    },
    set(key, value) {
      const at = now();
      prune(at);
      entries.set(key, { expires: at + ttlMs, promise: Promise.resolve(value) });
    },
    forget(key) {
      entries.delete(key);
    },
    clear(prefix = "") {
      for (const key of entries.keys()) if (key.startsWith(prefix)) entries.delete(key);
    },
  };
}
