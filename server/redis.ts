import { Redis } from "ioredis";
import { logEvent } from "../app/lib/log.server";

/**
 * The shared store for several instances (rate limits). Commands fail at once
 * while it is away (no offline queue), so nothing waits on it; it reconnects
 * by itself. One warning when it goes away, one line when it is back.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
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
