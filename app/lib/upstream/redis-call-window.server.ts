import { randomUUID } from "node:crypto";
import { ALLOWANCE_WINDOW_MS, type Charge, type Refusal, type SharedCallWindow } from "./call-budget.server";
import type { SharedRedis } from "../redis-commands.server";

/**
 * Each payer's window and each pool's, beside the fleet's (`fleetKey`):
 * hash-tagged with the fleet's key's name, so that on a Redis Cluster they
 * share its slot (a key without braces hashes by its whole name) and one
 * script checks and counts them together. One slot for all of them: every
 * call already goes through the fleet's key, so this adds no round trip and
 * no hot node that was not there. Each lives a minute past its last call.
 */
export const allowanceKey = (fleetKey: string, name: string) => `{${fleetKey}}:${name}`;

/**
 * If every window has room, counts one call in each: {0, 0}; else counts
 * nothing and answers which was full (its place in KEYS) and the ms until
 * its oldest leaves. A window is a sorted set of calls scored by when they
 * were taken, kept to at most its limit: its size (ZCARD) is at least the
 * calls in the window, so while it is under the limit there is room, and
 * the calls that have left it are dropped (ZREMRANGEBYSCORE) only when it
 * has reached the limit, then counted again. So a call costs a ZCARD, a ZADD
 * and a PEXPIRE per window, not also a ZREMRANGEBYSCORE, and a window holds
 * no more than before. KEYS, in the order they are checked: the payer's
 * window, its pool's (optional), the deferrable calls' share of the fleet's
 * (optional), the fleet's; ARGV: now (ms), this call's member, then each
 * key's window (ms) and limit. The times are the instances' own (ARGV), not
 * Redis's: a clock a few ms off only shifts its calls by as much, well
 * inside the 10% margin.
 */
const TAKE = `
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local window, limit = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  if redis.call('ZCARD', key) >= limit then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
    if redis.call('ZCARD', key) >= limit then
      local oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
      return {i, math.min(window, math.max(1, oldest + window - now))}
    end
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, tonumber(ARGV[1 + 2 * i]))
end
return {0, 0}`;

/**
 * The budget's windows in Redis, shared by every instance: the fleet's, one
 * sorted set at `fleetKey` (each member a call, scored by when it was taken;
 * at most `limit` members: about 40 KB at 900), each payer's seen in the
 * last minute (at most its allowance: 60 members for a person), and the
 * pools'. The key is outside the release's format (server/redis-keys.ts
 * names it), as Clerk's limit is the whole application's.
 */
export function redisCallWindow(
  redis: SharedRedis,
  { fleetKey, limit, windowMs }: { fleetKey: string; limit: number; windowMs: number },
): SharedCallWindow {
  const windowKey = (name: string) => allowanceKey(fleetKey, name);
  const instance = randomUUID();
  let sequence = 0;
  return {
    async take(now, charge: Charge): Promise<Refusal | null> {
      const windows: { key: string; windowMs: number; limit: number; by: Refusal["by"] }[] = [
        { key: windowKey(charge.payer), windowMs: ALLOWANCE_WINDOW_MS, limit: charge.limit, by: "allowance" },
      ];
      if (charge.pool) {
        const { name, limit: poolLimit } = charge.pool;
        windows.push({
          key: windowKey(`pool:${name}`),
          windowMs: ALLOWANCE_WINDOW_MS,
          limit: poolLimit,
          by: "allowance",
        });
      }
      if (charge.deferrable)
        windows.push({
          key: windowKey("share:deferrable"),
          windowMs,
          limit: charge.deferrable.limit,
          by: "deferrable",
        });
      windows.push({ key: fleetKey, windowMs, limit, by: "fleet" });
      const [full, wait] = (await redis.eval(
        TAKE,
        windows.length,
        ...windows.map((w) => w.key),
        now,
        `${instance}:${sequence++}`,
        ...windows.flatMap((w) => [w.windowMs, w.limit]),
      )) as [number, number];
      if (full === 0) return null;
      return { waitMs: Number(wait), by: windows[full - 1]?.by ?? "fleet" };
    },
  };
}
