import { createExpiringKeys } from "../expiring-keys";

/**
 * Sessions and people Clerk said are gone (its webhooks `session.ended`,
 * `session.removed`, `session.revoked`, `user.deleted`), by session or user
 * id, kept as long as a token of theirs could still be taken for one
 * (STALE_TOKEN_WINDOW_MS past a 60 s token's expiry, and then some). A token
 * of theirs spends nothing of its owner's: it is anonymous work from its
 * address, or refused without a call (docs/security.md, "Who pays").
 *
 * Best effort: a mark missed (Redis failing, or an instance started after
 * the webhook without Redis) only leaves that token charged to its owner,
 * as before; it never grants anything.
 */
export type GoneSessions = {
  /** Records that Clerk said the session (a `sess_…` id) or the person (a `user_…` id) is gone. */
  mark(id: string): Promise<void>;
  /** Whether Clerk lately said any of these ids is gone. */
  anyGone(ids: string[]): Promise<boolean>;
};

/** A session token's longest life (60 s), the rescue window past it (10 minutes), and a minute's margin. */
export const GONE_KEPT_MS = 12 * 60_000;

/** The list of a single instance (no Redis), in memory: at most `max` ids, the oldest going first. */
export function memoryGoneSessions({ max = 50_000, now = Date.now } = {}): GoneSessions {
  const gone = createExpiringKeys({ max, now });
  return {
    mark: async (id) => gone.add(id, GONE_KEPT_MS),
    anyGone: async (ids) => ids.some(gone.has),
  };
}
