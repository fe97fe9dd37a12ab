import { GONE_KEPT_MS, type GoneSessions } from "./gone-sessions.server";
import type { KeyFormat, SharedRedis } from "../redis-commands.server";

/** The sessions and people Clerk said are gone, shared by every instance: one key per id (Cluster-safe). */
export function redisGoneSessions(redis: SharedRedis, redisKey: KeyFormat): GoneSessions {
  const goneKey = (id: string) => redisKey(`gone:${id}`);
  return {
    async mark(id) {
      await redis.set(goneKey(id), "1", "PX", GONE_KEPT_MS);
    },
    async anyGone(ids) {
      const found = await Promise.all(ids.map((id) => redis.exists(goneKey(id))));
      return found.some((n) => n > 0);
    },
  };
}
