import { ENDED_KEPT_MS, INDEX_KEPT_MS, type MembershipIndex } from "./membership-index.server";
import { together, type KeyFormat, type RedisCommand, type SharedRedis } from "../redis-commands.server";

/** Adds the user id and moves the set's expiry on: it outlives every kept answer that named the organization. */
const ADD = `
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])`;
/** Keeps the later of two ends (deliveries come in any order). */
const END = `
local previous = redis.call('GET', KEYS[1])
if previous and tonumber(previous) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/**
 * The membership index (app/lib/cache/membership-index.server) in Redis,
 * shared by every instance: a set per organization, each command on one key,
 * so a Redis Cluster serves it as one Redis does.
 */
export function redisMembershipIndex(redis: SharedRedis, redisKey: KeyFormat): MembershipIndex {
  /** An organization's set of user ids whose kept memberships name it. */
  const membersKey = (orgId: string) => redisKey(`org-members:${orgId}`);
  /** When a membership last ended (Clerk's ms). */
  const endedKey = (orgId: string, userId: string) => redisKey(`membership-ended:${orgId}:${userId}`);
  return {
    async add(userId, orgIds) {
      const commands = orgIds.map((orgId): RedisCommand => ["eval", ADD, 1, membersKey(orgId), userId, INDEX_KEPT_MS]);
      if (commands.length > 0) await together(redis, commands);
    },
    membersOf: (orgId) => redis.smembers(membersKey(orgId)),
    async ended(orgId, userId, at) {
      await redis.eval(END, 1, endedKey(orgId, userId), at, ENDED_KEPT_MS);
    },
    async endedAt(orgId, userId) {
      const at = await redis.get(endedKey(orgId, userId));
      return at === null ? null : Number(at);
    },
  };
}
