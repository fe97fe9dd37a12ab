import type { OrgSummary } from "./organizations";

/**
 * A person's organization list, kept briefly per user id: a document load and
 * the browser's first data requests would otherwise read the same list
 * several times. Never shared between users; forgotten on this instance's own
 * writes (creating an organization).
 */
export type MembershipCache = {
  get(userId: string, load: () => Promise<OrgSummary[]>): Promise<OrgSummary[]>;
  forget(userId: string): void;
};

export function createMembershipCache({ ttlMs = 2_000, maxEntries = 1_000, now = Date.now } = {}): MembershipCache {
  const entries = new Map<string, { expires: number; promise: Promise<OrgSummary[]> }>();

  function prune(at: number) {
    if (entries.size < maxEntries) return;
    for (const [key, entry] of entries) if (entry.expires <= at) entries.delete(key);
  }

  return {
    get(userId, load) {
      const at = now();
      const cached = entries.get(userId);
      if (cached && cached.expires > at) return cached.promise;
      prune(at);
      const entry = { expires: at + ttlMs, promise: load() };
      entries.set(userId, entry);
      // A failed read is not worth remembering.
      entry.promise.catch(() => {
        if (entries.get(userId) === entry) entries.delete(userId);
      });
      return entry.promise;
    },
    forget(userId) {
      entries.delete(userId);
    },
  };
}
