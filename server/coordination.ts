import { randomUUID } from "node:crypto";
import { createBackoff, type Backoff } from "../app/lib/upstream/backoff.server";
import { COORDINATION_CHANNEL as CHANNEL, REDIS_FORMAT, redisKey } from "./redis-keys";
import type { SharedRedis } from "../app/lib/redis-commands.server";
import { connectSubscriber, type RedisConfig } from "./redis";

/** Upstreams held back after a 429: upstream → until (ms since the epoch), for instances that start or reconnect during a hold. */
const HOLDS = redisKey("holds");
/** A webhook's claim: "applying" or "applied" (see Claim). */
const claimKey = (webhookId: string) => redisKey(`webhook:${webhookId}`);
/** How long an applied webhook's id is remembered: twice the 5 minutes a signature's timestamp is accepted for. */
const REPLAY_WINDOW_MS = 600_000;
/**
 * How long a claimed id stays "applying" when nothing marks it applied or
 * gives it back (Redis went away mid-way): longer than applying takes (its
 * Clerk lookups give up after 8 s), and over before Svix's second retry (it
 * retries after 5 s, then 5 minutes).
 */
const APPLYING_FOR_MS = 30_000;
const APPLYING = "applying";
const APPLIED = "applied";

/**
 * A webhook's id as a delivery finds it: `claimed` (this delivery applies
 * it), `applying` (another delivery is: not applied yet), `applied`.
 */
export type Claim = "claimed" | "applying" | "applied";

/** Takes the id as "applying" unless it is taken: what it was (nil if taken now). KEYS: the id's; ARGV: its life in ms. */
const CLAIM = `
local previous = redis.call('GET', KEYS[1])
if previous then return previous end
redis.call('SET', KEYS[1], '${APPLYING}', 'PX', ARGV[1])
return false`;

/**
 * The channel the shared caches speak on (app/lib/cache/fleet.server, its
 * Channel): keys they changed, told to the others and heard from them, with
 * the key format the sender keeps its copies in. The keys are the caches'
 * to read: this file only carries them.
 */
type CacheChannel = {
  tell(keys: unknown[]): Promise<void>;
  onHeard(listener: (keys: unknown[], format: number | undefined) => void): void;
};

export type Coordination = CacheChannel & {
  /** Upstreams held back after a 429: here, and (through Redis) on every other instance. */
  backoff: Backoff;
  /**
   * Takes a webhook's id (on every instance) for a short while, so that two
   * deliveries of one message are not both applied; see Claim. An id given
   * neither back nor marked applied (Redis went away) is free again after
   * `applyingForMs`, for Svix's next retry.
   */
  claim(webhookId: string): Promise<Claim>;
  /** Marks a claimed id applied, for the replay window: later deliveries of it are acknowledged only. */
  applied(webhookId: string): Promise<void>;
  /** Gives a claimed id back (its message could not be applied: Svix will deliver it again). */
  release(webhookId: string): Promise<void>;
  /** Resolves once this instance hears the others (subscribed to their channel), or could not. */
  listening: Promise<void>;
  close(): Promise<void>;
};

/**
 * What goes on the channel. Every release since the first reads it, so its
 * shape only ever gains fields: `format` (absent from format 1's) says which
 * key format the sender keeps its copies in.
 */
type Message = { from: string; format?: number } & (
  { keys: unknown[] } | { hold: { upstream: string; until: number } }
);

/** A message as sent, or null for anything else on the channel (a newer release's kind, a stray PUBLISH). */
function readMessage(json: string): Message | null {
  let message: unknown;
  try {
    message = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof message !== "object" || message === null) return null;
  const { from, keys, hold } = message as Record<string, unknown>;
  if (typeof from !== "string") return null;
  // (The caches read the keys: app/lib/cache/fleet.server.)
  if (Array.isArray(keys)) return message as Message;
  const { upstream, until } = (hold ?? {}) as Record<string, unknown>;
  return typeof upstream === "string" && typeof until === "number" ? (message as Message) : null;
}

/**
 * What instances tell each other: cached answers to drop (the channel the
 * shared caches speak on: app/lib/cache/fleet.server), upstreams to leave
 * alone for a while (a 429 reached one of them), and which webhooks are
 * applied. With Redis, on a channel every instance listens to (its own
 * connection, which subscribes again after a reconnect), and applied
 * webhooks' ids are shared; without it, there is one instance and its
 * memory is enough. Redis's channel delivers at most once: an instance
 * reconnecting, or not yet subscribed, misses a message.
 */
export function createCoordination(
  redis: { client: SharedRedis; config: RedisConfig } | null,
  { now = Date.now, applyingForMs = APPLYING_FOR_MS } = {},
): Coordination {
  const backoff = createBackoff(now);
  if (!redis) {
    const ids = new Map<string, { state: Exclude<Claim, "claimed">; until: number }>();
    return {
      backoff,
      tell: async () => undefined,
      onHeard: () => undefined,
      async claim(id) {
        const at = now();
        for (const [key, { until }] of ids) if (until <= at) ids.delete(key);
        const taken = ids.get(id);
        if (taken) return taken.state;
        ids.set(id, { state: "applying", until: at + applyingForMs });
        return "claimed";
      },
      async applied(id) {
        ids.set(id, { state: "applied", until: now() + REPLAY_WINDOW_MS });
      },
      async release(id) {
        ids.delete(id);
      },
      listening: Promise.resolve(),
      async close() {},
    };
  }

  const instance = randomUUID();
  const listeners: Parameters<CacheChannel["onHeard"]>[0][] = [];
  const subscriber = connectSubscriber(redis.config);
  subscriber.on("message", (_channel: string, json: string) => {
    const message = readMessage(json);
    if (message === null || message.from === instance) return;
    if ("hold" in message) return backoff.hold(message.hold.upstream, message.hold.until);
    for (const listener of listeners) listener(message.keys, message.format);
  });
  const listening = subscriber.subscribe(CHANNEL).then(
    () => undefined,
    () => undefined,
  );
  // A hold made while this instance was starting or away is in Redis: its
  // messages are not. Read once either connection is (back) up.
  const readHolds = () =>
    void redis.client.hgetall(HOLDS).then(
      (holds) => {
        for (const [upstream, until] of Object.entries(holds)) backoff.hold(upstream, Number(until));
      },
      () => undefined,
    );
  subscriber.on("ready", readHolds);
  redis.client.on("ready", readHolds);
  if (redis.client.status === "ready") readHolds();
  const publish = (message: { keys: unknown[] } | { hold: { upstream: string; until: number } }) =>
    redis.client.publish(CHANNEL, JSON.stringify({ from: instance, format: REDIS_FORMAT, ...message }));

  return {
    backoff: {
      heldUntil: (upstream) => backoff.heldUntil(upstream),
      hold(upstream, until) {
        backoff.hold(upstream, until);
        // Best effort: the others learn of it, or meet the 429 themselves.
        publish({ hold: { upstream, until } }).catch(() => undefined);
        // The hash lives as long as its longest hold (NX: a first expiry, GT: a later one; Redis 7).
        redis.client
          .pipeline()
          .hset(HOLDS, upstream, String(until))
          .pexpireat(HOLDS, until, "NX")
          .pexpireat(HOLDS, until, "GT")
          .exec()
          .catch(() => undefined);
      },
    },
    tell: async (keys) => void (await publish({ keys })),
    onHeard: (listener) => void listeners.push(listener),
    async claim(id) {
      const previous = await redis.client.eval(CLAIM, 1, claimKey(id), applyingForMs);
      if (previous === null) return "claimed";
      return previous === APPLYING ? "applying" : "applied";
    },
    async applied(id) {
      await redis.client.set(claimKey(id), APPLIED, "PX", REPLAY_WINDOW_MS);
    },
    async release(id) {
      await redis.client.del(claimKey(id));
    },
    listening,
    async close() {
      subscriber.disconnect();
    },
  };
}
