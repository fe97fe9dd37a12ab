import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { CacheStore, Stored } from "../app/lib/shared-cache.server";

const VALUES = "teamwork:cache:";
/** A family's generation (outside `teamwork:cache:*`, which holds answers only). */
const GENERATIONS = "teamwork:cache-gen:";

/**
 * Keeps the answer only under the generation it was read under, in one step
 * (a forget between the check and the SET would otherwise be lost). A family
 * with no generation (Redis restarted, or evicted it) may have lost a forget:
 * the write is refused and a generation started, for the next read to write.
 * KEYS: the answer, the family's generation; ARGV: the JSON, its life in ms,
 * the generation read ("" for none), a new generation.
 */
const WRITE_IF_UNCHANGED = `
local current = redis.call('GET', KEYS[2])
if not current then
  redis.call('SET', KEYS[2], ARGV[4], 'NX')
  return 0
end
if current ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Moves the family's generation on and deletes the key, in one step. KEYS: the generation, the answer; ARGV: the new generation. */
const FORGET = `
redis.call('SET', KEYS[1], ARGV[1])
redis.call('UNLINK', KEYS[2])
return 1`;

/**
 * The caches' store shared by every instance: one Redis string per answer,
 * JSON, expiring with it, and per family a generation that is a random id
 * (a counter would start again from nothing after Redis restarts, and could
 * meet a value read before). Commands fail at once while Redis is away (the
 * connection keeps no offline queue): a read is then a miss, a write is
 * dropped, and a forget fails for the caller to see.
 */
export function redisCacheStore(redis: Redis): CacheStore {
  const valueKey = (family: string, key: string) => `${VALUES}${family}:${key}`;
  return {
    async read(family, key) {
      // The hit path's one round trip: the answer and its generation together.
      const [json, generation] = await redis.mget(valueKey(family, key), GENERATIONS + family);
      return { stored: json == null ? null : (JSON.parse(json) as Stored), generation: generation ?? null };
    },
    async write(family, key, stored, keepMs, generation) {
      const args = [JSON.stringify(stored), keepMs, generation ?? "", randomUUID()];
      const kept = await redis.eval(WRITE_IF_UNCHANGED, 2, valueKey(family, key), GENERATIONS + family, ...args);
      return kept === 1;
    },
    async delete(family, key) {
      await redis.eval(FORGET, 2, GENERATIONS + family, valueKey(family, key), randomUUID());
    },
    async clear(family, prefix) {
      // First the generation: a write landing while the keys are deleted is refused.
      await redis.set(GENERATIONS + family, randomUUID());
      // A Redis pattern with the prefix's own glob characters escaped.
      const match = `${valueKey(family, prefix).replace(/[*?[\]\\]/g, "\\$&")}*`;
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", match, "COUNT", 500);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== "0");
    },
  };
}
