/**
 * Upstream endpoints that asked us to wait (a 429 with Retry-After): no call
 * is made to one until its time has passed. `hold` is told by whatever saw
 * the 429, or (through Redis) by another instance that did.
 */
export type Backoff = {
  hold(upstream: string, untilMs: number): void;
  /** When calls to `upstream` may start again (ms since the epoch), or null if they may now. */
  heldUntil(upstream: string): number | null;
};

export function createBackoff(now = Date.now): Backoff {
  const held = new Map<string, number>();
  return {
    hold(upstream, untilMs) {
      if (untilMs > (held.get(upstream) ?? 0)) held.set(upstream, untilMs);
    },
    heldUntil(upstream) {
      const until = held.get(upstream);
      if (until === undefined) return null;
      if (until > now()) return until;
      held.delete(upstream);
      return null;
    },
  };
}

/** How long to wait after a 429 that named no time. */
export const DEFAULT_BACKOFF_MS = 5_000;
