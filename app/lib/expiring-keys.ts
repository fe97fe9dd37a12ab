/**
 * Keys remembered for a while each, in this process's memory, at most `max`
 * at once: past that, the expired go first, then the oldest (Maps keep
 * insertion order), so a client cannot grow it. What a throttle, a claim
 * honoured once, or a short list of revoked ids keeps.
 */
export function createExpiringKeys({ max, now = Date.now }: { max: number; now?: () => number }) {
  const until = new Map<string, number>();
  const has = (key: string) => (until.get(key) ?? 0) > now();
  const add = (key: string, ttlMs: number) => {
    const at = now();
    until.delete(key);
    if (until.size >= max) for (const [k, t] of until) if (t <= at) until.delete(k);
    if (until.size >= max) until.delete(until.keys().next().value as string);
    until.set(key, at + ttlMs);
  };
  return {
    /** Whether `key` is remembered now. */
    has,
    /** Remembers `key` for `ttlMs` from now (from now again, if it was). */
    add,
    /** Remembers `key` for `ttlMs` unless it is remembered already: whether it was added. */
    addIfAbsent(key: string, ttlMs: number): boolean {
      if (has(key)) return false;
      add(key, ttlMs);
      return true;
    },
  };
}
