import { randomUUID } from "node:crypto";
import {
  ALLOWANCE_WINDOW_MS,
  type Charge,
  type Refusal,
  type SharedCallWindow,
} from "../app/lib/upstream/call-budget.server";
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
 * Each payer's window and each pool's, beside the fleet's: hash-tagged with
 * the fleet's key's name, so that on a Redis Cluster they share its slot
 * (a key without braces hashes by its whole name) and one script checks and
 * counts them together. One slot for all of them: every call already goes
 * through the fleet's key, so this adds no round trip and no hot node that
 * was not there. Each lives a minute past its last call.
 */
export const allowanceKey = (name: string) => `{${CLERK_BUDGET_KEY}}:${name}`;

/**
 * Drops the calls that have left each window, then, if the payer's window,
 * its pool's (if any) and the fleet's all have room, counts one in each:
 * {0, 0}; else counts nothing and answers which was full (1 the payer's
 * allowance, 2 the pool's, 3 the fleet's) and the ms until its oldest
 * leaves. The times are the instances' own (ARGV), not Redis's: a clock a
 * few ms off only shifts its calls by as much, well inside the 10% margin.
 * KEYS: the fleet's window, the payer's, the pool's (optional); ARGV: now
 * (ms), the fleet's window (ms) and limit, this call's member, the
 * allowances' window (ms), the payer's limit, the pool's limit.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local function wait(key, window, limit)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) < limit then return 0 end
  local oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  return math.min(window, math.max(1, oldest + window - now))
end
local fleetWindow, allowanceWindow = tonumber(ARGV[2]), tonumber(ARGV[5])
local w = wait(KEYS[2], allowanceWindow, tonumber(ARGV[6]))
if w > 0 then return {1, w} end
if KEYS[3] then
  w = wait(KEYS[3], allowanceWindow, tonumber(ARGV[7]))
  if w > 0 then return {2, w} end
end
w = wait(KEYS[1], fleetWindow, tonumber(ARGV[3]))
if w > 0 then return {3, w} end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, i == 1 and fleetWindow or allowanceWindow)
end
return {0, 0}`;

/**
 * The budget's windows in Redis, shared by every instance: the fleet's (at
 * most `limit` members: about 40 KB at 900), each payer's seen in the last
 * minute (at most its allowance: 60 members for a person), and the pools'.
 */
export function redisCallWindow(redis: SharedRedis, limit: number, windowMs: number): SharedCallWindow {
  const instance = randomUUID();
  let sequence = 0;
  return {
    async take(now, charge: Charge): Promise<Refusal | null> {
      const keys = [CLERK_BUDGET_KEY, allowanceKey(charge.payer)];
      if (charge.pool) keys.push(allowanceKey(`pool:${charge.pool.name}`));
      const [full, wait] = (await redis.eval(
        TAKE,
        keys.length,
        ...keys,
        now,
        windowMs,
        limit,
        `${instance}:${sequence++}`,
        ALLOWANCE_WINDOW_MS,
        charge.limit,
        charge.pool?.limit ?? 0,
      )) as [number, number];
      if (full === 0) return null;
      return { waitMs: Number(wait), by: full === 3 ? "fleet" : "allowance" };
    },
  };
}
