import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import { logEvent } from "../app/lib/log.server";
import type { SharedRedis } from "../app/lib/redis-commands.server";

/**
 * Where the shared store is: one Redis (`REDIS_URL`), or some nodes of a Redis
 * Cluster (`REDIS_CLUSTER_URLS`), from which the client learns the others.
 */
export type RedisConfig = { url: string } | { clusterUrls: string[] };

/** The config from the validated environment, or null when neither variable is set. */
export function redisConfig(env: { REDIS_URL?: string; REDIS_CLUSTER_URLS?: string[] }): RedisConfig | null {
  if (env.REDIS_CLUSTER_URLS) return { clusterUrls: env.REDIS_CLUSTER_URLS };
  if (env.REDIS_URL) return { url: env.REDIS_URL };
  return null;
}

const reconnect = (times: number) => Math.min(times * 200, 2_000);

/** A cluster's nodes as ioredis takes them, with what the URLs say of credentials and TLS. */
function clusterClient(urls: string[], options: Partial<ClusterOptions>): Cluster {
  const first = new URL(urls[0]!);
  const redisOptions: RedisOptions = {
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === "rediss:" ? { tls: {} } : {}),
  };
  return new Cluster(
    urls.map((url) => {
      const { hostname, port } = new URL(url);
      return { host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || 6379) };
    }),
    {
      redisOptions,
      clusterRetryStrategy: reconnect,
      // A failover moves slots: ask the cluster again soon, and answer from primaries only
      // (a replica's copy may lag behind a forget). While a primary is down and not yet
      // replaced, a command for its slots fails after 4 tries (measured: 0.2 to 0.4 s, not
      // the 1.2 to 1.7 s of ioredis' 16), as one Redis gone fails at once: pages do not wait on it.
      scaleReads: "master",
      retryDelayOnFailover: 100,
      maxRedirections: 4,
      retryDelayOnClusterDown: 100,
      slotsRefreshTimeout: 2_000,
      ...options,
    },
  );
}

/**
 * The shared store for several instances (rate limits, caches, webhook
 * claims). Commands fail at once while it is away (no offline queue), so
 * nothing waits on it; it reconnects by itself. One warning when it goes
 * away, one line when it is back.
 */
export function connectRedis(config: RedisConfig): SharedRedis {
  const redis =
    "url" in config
      ? new Redis(config.url, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2_000,
          retryStrategy: reconnect,
        })
      : clusterClient(config.clusterUrls, { enableOfflineQueue: false });
  let available = true;
  const lost = (reason: string) => {
    if (!available) return;
    available = false;
    logEvent("warning", {
      component: "redis",
      message: `Redis is unavailable (${reason}); rate limits are counted per process until it is back.`,
    });
  };
  redis.on("error", (error: Error) => lost(error.message));
  redis.on("close", () => lost("connection closed"));
  redis.on("ready", () => {
    if (available) return;
    available = true;
    logEvent("info", { component: "redis", message: "Redis is back; rate limits are shared again." });
  });
  return redis;
}

/**
 * A connection of its own for listening on a channel: it subscribes again
 * after a reconnect (on a cluster, through another node when its node
 * fails), queueing its SUBSCRIBE until it is up.
 */
export function connectSubscriber(config: RedisConfig): SharedRedis {
  const subscriber =
    "url" in config ? new Redis(config.url, { retryStrategy: reconnect }) : clusterClient(config.clusterUrls, {});
  // The shared connection already says when Redis is away.
  subscriber.on("error", () => undefined);
  return subscriber;
}
