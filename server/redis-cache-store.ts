import { randomUUID } from "node:crypto";
import type { ChainableCommander } from "ioredis";
import type { SharedRedis } from "./redis";
import {
  epochOf,
  groupNamedBy,
  groupOf,
  type CacheStore,
  type Generation,
  type Stored,
} from "../app/lib/cache-store.server";

/*
 * Keys, with a group's in one hash tag (`{family|group}`: a Redis Cluster
 * keeps a group's generation and its answers in one slot, as each script
 * below needs):
 * - `teamwork:cache:{<family>|<group>}:<key>`: an answer, JSON, with the
 *   group generation and family epoch it was kept under (shown only while
 *   both are current: a forget deletes nothing, the answer expires with its
 *   life);
 * - `teamwork:cache-gen:{<family>|<group>}`: the group's generation, a random
 *   id, living an hour past its last use (a group unused that long starts a
 *   new one);
 * - `teamwork:cache-gen:<family>`: the family's, `<epoch>:<random id>`, moved
 *   by every forget of the family, its epoch by a clear of every group. It has
 *   the name the release before this one gave a family's only generation, so
 *   that release and this one can share Redis during a rolling deploy: its
 *   forgets move it (this release's answers of the family are then hidden),
 *   and this release's move it (that release's writes under way are refused)
 *   and drop the key's answer as that release keeps it; a group's or a whole
 *   family's answers as it keeps them are left to expire (finding them would
 *   take a SCAN), so its instances may show them until their fresh lifetime
 *   ends.
 * Each script names keys of one slot. In a Redis Cluster the family's
 * generation is in another slot than the group's keys: the hit path's MGET
 * becomes the group's MGET and the family's GET sent together, and each
 * pipeline below one per slot.
 */
const VALUES = "teamwork:cache:";
const GENERATIONS = "teamwork:cache-gen:";
/** How long a group's generation outlives its last use: longer than any answer kept under it. */
const GROUP_LIFE_MS = 60 * 60_000;

/**
 * Keeps the answer only under the generation it was read under, in one step
 * (a forget between the check and the SET would otherwise be lost), and keeps
 * the generation alive as long as the answer. KEYS: the answer, its group's
 * generation; ARGV: the JSON, its life in ms, the group generation read, the
 * generation's life in ms.
 */
const WRITE_IF_UNCHANGED = `
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1`;

/**
 * Moves the family's generation on, keeping its epoch (a missing one starts a
 * new epoch). KEYS: the family's generation; ARGV: a new id.
 */
const MOVE_FAMILY = `
local current = redis.call('GET', KEYS[1])
local epoch = current and string.match(current, '^[^:]*') or ARGV[1]
redis.call('SET', KEYS[1], epoch .. ':' .. ARGV[1])
return 1`;

type Kept = Stored & { group: string; epoch: string };

/** Runs a pipeline's commands in order, in one round trip; throws the first command's error, as one command would. */
async function inOrder(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([error]) => error);
  if (failed) throw failed[0];
  return results.map(([, result]) => result);
}

/**
 * The caches' store shared by every instance (see the key layout above).
 * Generations are random ids (a counter would start again from nothing after
 * Redis restarts, and could meet a value read before). Commands fail at once
 * while Redis is away (the connection keeps no offline queue): a read is then
 * a miss, a write is dropped, and a forget fails for the caller to see. A
 * forget or clear runs a fixed handful of commands, whatever the keyspace
 * holds: it looks for no key.
 */
export function redisCacheStore(redis: SharedRedis): CacheStore {
  const tag = (family: string, group: string) => `{${family}|${group}}`;
  const answerKey = (family: string, key: string) => `${VALUES}${tag(family, groupOf(key))}:${key}`;
  const groupKey = (family: string, group: string) => `${GENERATIONS}${tag(family, group)}`;
  const familyKey = (family: string) => GENERATIONS + family;
  /** The release before this one's key for an answer (see the layout above). */
  const earlierAnswerKey = (family: string, key: string) => `${VALUES}${family}:${key}`;

  /**
   * Moves the family's generation on, then (for a key) drops the key's answer
   * as the release before this one keeps it, then moves the group's: one
   * round trip, in that order (the family's first: see writeIfQuiet; the
   * generation the earlier release checks before its answer goes, as it did).
   */
  const moveOn = (family: string, group: string, earlierAnswer?: string) => {
    const pipeline = redis.pipeline().eval(MOVE_FAMILY, 1, familyKey(family), randomUUID());
    if (earlierAnswer) pipeline.unlink(earlierAnswer);
    return inOrder(pipeline.set(groupKey(family, group), randomUUID(), "PX", GROUP_LIFE_MS));
  };

  const store: CacheStore = {
    async read(family, key) {
      // The hit path's one round trip: the answer and both generations together.
      const [json, group = null, familyGeneration = null] = await redis.mget(
        answerKey(family, key),
        groupKey(family, groupOf(key)),
        familyKey(family),
      );
      const generation: Generation = { group, family: familyGeneration };
      if (json == null || group === null || familyGeneration === null) return { stored: null, generation };
      const kept = JSON.parse(json) as Kept;
      const current = kept.group === group && kept.epoch === epochOf(familyGeneration);
      return { stored: current ? { value: kept.value, at: kept.at } : null, generation };
    },
    async start(family, key) {
      // Each set only where missing; GET says what was there (another instance's start, or a forget's).
      const [group, familyGeneration] = [randomUUID(), `${randomUUID()}:${randomUUID()}`];
      const [groupBefore, familyBefore] = (await inOrder(
        redis.pipeline([
          ["set", groupKey(family, groupOf(key)), group, "PX", GROUP_LIFE_MS, "NX", "GET"],
          ["set", familyKey(family), familyGeneration, "NX", "GET"],
        ]),
      )) as (string | null)[];
      return { group: groupBefore ?? group, family: familyBefore ?? familyGeneration };
    },
    async write(family, key, stored, keepMs, generation) {
      if (generation.group === null || generation.family === null) return false;
      const kept: Kept = { ...stored, group: generation.group, epoch: epochOf(generation.family) };
      const args = [JSON.stringify(kept), keepMs, generation.group, Math.max(keepMs, GROUP_LIFE_MS)];
      const written = await redis.eval(
        WRITE_IF_UNCHANGED,
        2,
        answerKey(family, key),
        groupKey(family, groupOf(key)),
        ...args,
      );
      return written === 1;
    },
    async writeIfQuiet(family, key, stored, keepMs, familyGeneration) {
      // The group's generation read before the family's: a forget moves the
      // family's first, so one that came after `familyGeneration` was read
      // either shows here or moves the group's before (refused) or after
      // (hidden) the write.
      const [group, current] = (await inOrder(
        redis
          .pipeline()
          .get(groupKey(family, groupOf(key)))
          .get(familyKey(family)),
      )) as (string | null)[];
      if (current !== familyGeneration || group == null) return false;
      return store.write(family, key, stored, keepMs, { group, family: familyGeneration });
    },
    async delete(family, key) {
      await moveOn(family, groupOf(key), earlierAnswerKey(family, key));
    },
    async clear(family, prefix) {
      const group = groupNamedBy(prefix);
      // Every group: a new epoch hides every answer of the family at once.
      if (group === null) await redis.set(familyKey(family), `${randomUUID()}:${randomUUID()}`);
      else await moveOn(family, group);
    },
  };
  return store;
}
