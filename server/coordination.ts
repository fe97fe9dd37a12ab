import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { forgetKeys, type CacheKey, type OrgCaches } from "../app/lib/orgs/org-caches.server";
import { createBackoff, type Backoff } from "../app/lib/upstream/backoff.server";

const CHANNEL = "teamwork:coordination";
/** How long a webhook's id is remembered: twice the 5 minutes a signature's timestamp is accepted for. */
const REPLAY_WINDOW_S = 600;

export type Coordination = {
  /** Upstreams held back after a 429: here, and (through Redis) on every other instance. */
  backoff: Backoff;
  /** Forgets the keys on this instance and, through Redis, on every other. Throws when Redis cannot be reached. */
  forget(keys: CacheKey[]): Promise<void>;
  /** Whether a webhook with this id was already applied (on any instance). */
  seen(webhookId: string): Promise<boolean>;
  /** Remembers an applied webhook's id for the replay window. */
  remember(webhookId: string): Promise<void>;
  close(): Promise<void>;
};

type Message = { from: string } & ({ keys: CacheKey[] } | { hold: { upstream: string; until: number } });

/**
 * What instances tell each other: cached answers to forget (Clerk's webhooks
 * reach one of them), upstreams to leave alone for a while (a 429 reached
 * one of them). With Redis, on a channel every instance listens to (its own
 * connection, which subscribes again after a reconnect), and applied
 * webhooks' ids are shared; without it, there is one instance and its
 * memory is enough.
 */
export function createCoordination(
  caches: OrgCaches,
  redis: { client: Redis; url: string } | null,
  now = Date.now,
): Coordination {
  const backoff = createBackoff(now);
  if (!redis) {
    const applied = new Map<string, number>();
    return {
      backoff,
      async forget(keys) {
        forgetKeys(caches, keys);
      },
      async seen(id) {
        const until = applied.get(id);
        return until !== undefined && until > now();
      },
      async remember(id) {
        const at = now();
        for (const [key, until] of applied) if (until <= at) applied.delete(key);
        applied.set(id, at + REPLAY_WINDOW_S * 1000);
      },
      async close() {},
    };
  }

  const instance = randomUUID();
  const subscriber = new Redis(redis.url, { retryStrategy: (times) => Math.min(times * 200, 2_000) });
  // The shared connection already says when Redis is away.
  subscriber.on("error", () => undefined);
  subscriber.on("message", (_channel: string, json: string) => {
    const message = JSON.parse(json) as Message;
    if (message.from === instance) return;
    if ("keys" in message) forgetKeys(caches, message.keys);
    else backoff.hold(message.hold.upstream, message.hold.until);
  });
  void subscriber.subscribe(CHANNEL).catch(() => undefined);
  const publish = (message: Omit<Message, "from">) =>
    redis.client.publish(CHANNEL, JSON.stringify({ from: instance, ...message }));

  return {
    backoff: {
      heldUntil: (upstream) => backoff.heldUntil(upstream),
      hold(upstream, until) {
        backoff.hold(upstream, until);
        // Best effort: the others learn of it, or meet the 429 themselves.
        publish({ hold: { upstream, until } }).catch(() => undefined);
      },
    },
    async forget(keys) {
      forgetKeys(caches, keys);
      await publish({ keys });
    },
    async seen(id) {
      return (await redis.client.exists(`teamwork:webhook:${id}`)) === 1;
    },
    async remember(id) {
      await redis.client.set(`teamwork:webhook:${id}`, "1", "EX", REPLAY_WINDOW_S);
    },
    async close() {
      subscriber.disconnect();
    },
  };
}
