import type { Redis } from "ioredis";
import type { CacheStore, Stored } from "../app/lib/shared-cache.server";

const NAMESPACE = "teamwork:cache:";

/**
 * The caches' store shared by every instance: one Redis string per answer,
 * JSON, expiring with it. Commands fail at once while Redis is away (the
 * connection keeps no offline queue), and the caches take that as a miss.
 */
export function redisCacheStore(redis: Redis): CacheStore {
  return {
    async read(key) {
      const json = await redis.get(NAMESPACE + key);
      return json === null ? null : (JSON.parse(json) as Stored);
    },
    async write(key, stored, keepMs) {
      await redis.set(NAMESPACE + key, JSON.stringify(stored), "PX", keepMs);
    },
    async delete(key) {
      await redis.unlink(NAMESPACE + key);
    },
    async clear(prefix) {
      // A Redis pattern with the prefix's own glob characters escaped.
      const match = `${NAMESPACE}${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", match, "COUNT", 500);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== "0");
    },
  };
}
