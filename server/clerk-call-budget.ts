import { randomUUID } from "node:crypto";
import type { SharedCallWindow } from "../app/lib/upstream/call-budget.server";
import type { SharedRedis } from "./redis";

/**
 * The fleet's window of Clerk calls: one sorted set, each member a call,
 * scored by when it was taken. Outside the release's key format
 * (server/redis-keys.ts), as Clerk's limit is the whole application's: two
 * releases side by side during a rolling deploy count in one window, not
 * one each. A release that changes what is kept here gives it a new name.
 */
export const CLERK_BUDGET_KEY = "teamwork:clerk-budget";

/**
 * Drops the calls that have left the window, then counts one if there is
 * room: 0, or the ms until the oldest leaves. One key, so one slot on a
 * cluster. The times are the instances' own (ARGV), not Redis's: a clock a
 * few ms off only shifts its calls by as much, well inside the 10% margin.
 * KEYS: the window; ARGV: now (ms), the window (ms), the limit, this call's member.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
return math.min(window, math.max(1, oldest + window - now))`;

/** The budget's window in Redis, shared by every instance (at most `limit` members: about 40 KB at 900). */
export function redisCallWindow(redis: SharedRedis, limit: number, windowMs: number): SharedCallWindow {
  const instance = randomUUID();
  let sequence = 0;
  return {
    async take(now) {
      const wait = await redis.eval(TAKE, 1, CLERK_BUDGET_KEY, now, windowMs, limit, `${instance}:${sequence++}`);
      return Number(wait);
    },
  };
}
