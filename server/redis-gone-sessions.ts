import { GONE_KEPT_MS, type GoneSessions } from "../app/lib/clerk/gone-sessions.server";
import type { SharedRedis } from "./redis";
import { redisKey } from "./redis-keys";

const goneKey = (id: string) => redisKey(`gone:${id}`);

/** The sessions and people Clerk said are gone, shared by every instance: one key per id (Cluster-safe). */
export function redisGoneSessions(redis: SharedRedis): GoneSessions {
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
