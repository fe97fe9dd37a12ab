import { randomUUID } from "node:crypto";
import { ALLOWANCE_WINDOW_MS, type Charge, type Refusal, type SharedCallWindow } from "./call-budget.server";
import type { SharedRedis } from "../redis-commands.server";

/**
 * Each window's key: the fleet's (`calls`) and each payer's and pool's
 * (`calls:<name>`), hash-tagged with the fleet's key's name, so that on a
 * Redis Cluster they share its slot (a key without braces hashes by its
 * whole name) with the sorted set the release before kept at `fleetKey`
 * itself, and one script checks and counts them all together. One slot for
 * all of them: every call already goes through the fleet's window, so this
 * adds no round trip and no hot node that was not there.
 */
const allowanceKey = (fleetKey: string, name: string) => `{${fleetKey}}:calls:${name}`;
/** The fleet's window, a list of call times (tests read its length). */
export const fleetWindowKey = (fleetKey: string) => `{${fleetKey}}:calls`;

/** How often an instance looks for the release before's window when it has not seen it (a deploy or a rollback under way). */
const BEFORE_PROBE_MS = 10_000;

/**
 * If every window has room, counts one call in each: {0, 0, seen}; else
 * counts nothing and answers which was full (its place in KEYS), the ms
 * until a call can be free there, and `seen`: 1 when the release before's
 * window was there.
 *
 * A window is a list of the times of its calls, newest first. A call is
 * pushed first (LPUSH answers the list's length, which is at least the calls
 * in the window): while that is within the limit there was room, and the
 * call cost one command, with a PEXPIRE for a window that must end a minute
 * after its last call (a payer's). The fleet's and the pools' are one key
 * each for the whole fleet, kept (never more than their limit and one). Only
 * past the limit are the calls that have left the window dropped from the
 * list's tail (LRANGE, LTRIM) and the rest counted; if they still fill it,
 * this call is taken back from every window it was pushed to (LPOP: within
 * the script the head is this call), and the wait is until the limit-th
 * newest other call leaves. (Two commands a window cheaper than a sorted
 * set's ZCARD, ZADD and PEXPIRE, for the same bound.)
 *
 * KEYS: the payer's window, its pool's (optional), the fleet's (whose
 * limit, for a deferrable call, is its share of it); then, when ARGV[2] is 1, the
 * release before's sorted set of the fleet's calls, which its instances
 * still count during a rolling deploy: counted here too while it exists
 * (ZCARD, trimmed when full as they do), and this call added to it (ZADD,
 * never creating it, never extending its life: it ends a window after the
 * last call of the release before, when every call of this release in it
 * is in this release's list already). ARGV: now (ms), that flag, a member
 * unique to this call (for the sorted set), then each window's length (ms),
 * limit and life (ms; 0: kept). The times are the instances' own, not
 * Redis's: a clock a few ms off only shifts its calls by as much, well
 * inside the 10% margin.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local before = ARGV[2] == '1' and KEYS[#KEYS] or nil
local n = before and #KEYS - 1 or #KEYS
local function undo(upto)
  for k = 1, upto do redis.call('LPOP', KEYS[k]) end
end
for i = 1, n do
  local window, limit, life = tonumber(ARGV[1 + 3 * i]), tonumber(ARGV[2 + 3 * i]), tonumber(ARGV[3 + 3 * i])
  local size = redis.call('LPUSH', KEYS[i], now)
  if size > limit then
    local calls = redis.call('LRANGE', KEYS[i], 0, -1)
    local inside = size
    while tonumber(calls[inside]) <= now - window do inside = inside - 1 end
    if inside < size then redis.call('LTRIM', KEYS[i], 0, inside - 1) end
    if inside > limit then
      undo(i)
      return {i, math.min(window, math.max(1, tonumber(calls[limit + 1]) + window - now)), 0}
    end
  end
  if life > 0 then redis.call('PEXPIRE', KEYS[i], life) end
end
if not before then return {0, 0, 0} end
local window, limit = tonumber(ARGV[1 + 3 * n]), tonumber(ARGV[2 + 3 * n])
local count = redis.call('ZCARD', before)
if count >= limit then
  redis.call('ZREMRANGEBYSCORE', before, '-inf', now - window)
  count = redis.call('ZCARD', before)
  if count >= limit then
    undo(n)
    local oldest = tonumber(redis.call('ZRANGE', before, 0, 0, 'WITHSCORES')[2])
    return {n, math.min(window, math.max(1, oldest + window - now)), 1}
  end
end
if count == 0 then return {0, 0, 0} end
redis.call('ZADD', before, now, ARGV[3])
return {0, 0, 1}`;

/**
 * The budget's windows in Redis, shared by every instance: the fleet's, one
 * list of at most `limit` call times (about 12 KB at 900), each payer's seen
 * in the last minute (at most its allowance: 60 for a person), and the
 * pools'. The key is outside the release's format (server/redis-keys.ts
 * names it), as Clerk's limit is the whole application's; the release before
 * kept the fleet's calls as a sorted set at `fleetKey`, which is counted
 * while its instances run (TAKE above).
 */
export function redisCallWindow(
  redis: SharedRedis,
  { fleetKey, limit, windowMs }: { fleetKey: string; limit: number; windowMs: number },
): SharedCallWindow {
  const windowKey = (name: string) => allowanceKey(fleetKey, name);
  const instance = randomUUID();
  let sequence = 0;
  // The release before's window: looked for on the first call and every 10 s, and at every call
  // from when it is seen until a window has passed without it.
  let beforeSeenAt = -Infinity;
  let beforeProbedAt = -Infinity;
  return {
    async take(now, charge: Charge): Promise<Refusal | null> {
      const windows: { key: string; windowMs: number; limit: number; lifeMs: number; by: Refusal["by"] }[] = [
        {
          key: windowKey(charge.payer),
          windowMs: ALLOWANCE_WINDOW_MS,
          limit: charge.limit,
          lifeMs: ALLOWANCE_WINDOW_MS,
          by: "allowance",
        },
      ];
      if (charge.pool) {
        const { name, limit: poolLimit } = charge.pool;
        windows.push({
          key: windowKey(`pool:${name}`),
          windowMs: ALLOWANCE_WINDOW_MS,
          limit: poolLimit,
          lifeMs: 0,
          by: "allowance",
        });
      }
      // A deferrable call goes only while the fleet's window is below its share (call-budget.server).
      windows.push({
        key: fleetWindowKey(fleetKey),
        windowMs,
        limit: charge.deferrable?.limit ?? limit,
        lifeMs: 0,
        by: charge.deferrable ? "deferrable" : "fleet",
      });
      const lookBefore = now - beforeSeenAt < windowMs || now - beforeProbedAt >= BEFORE_PROBE_MS;
      if (lookBefore) beforeProbedAt = now;
      const keys = windows.map((w) => w.key);
      if (lookBefore) keys.push(fleetKey);
      const [full, wait, seen] = (await redis.eval(
        TAKE,
        keys.length,
        ...keys,
        now,
        lookBefore ? 1 : 0,
        `${instance}:${sequence++}`,
        ...windows.flatMap((w) => [w.windowMs, w.limit, w.lifeMs]),
      )) as [number, number, number];
      if (seen === 1) beforeSeenAt = now;
      if (full === 0) return null;
      return { waitMs: Number(wait), by: windows[full - 1]?.by ?? "fleet" };
    },
  };
}
