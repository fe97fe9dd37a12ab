import { randomUUID } from "node:crypto";
import {
  epochOf,
  groupNamedBy,
  groupOf,
  type CacheStore,
  type Generation,
  type Read,
  type Stored,
} from "./store.server";
import { inOrder, mgetAcrossSlots, together, type RedisCommand, type SharedRedis } from "../redis-commands.server";

/*
 * Keys, under the release's format (server/redis-keys.ts), a group's in one
 * hash tag (`{family|group}`: a Redis Cluster keeps a group's generation and
 * its answers in one slot, as each script below needs):
 * - `teamwork:2:cache:{<family>|<group>}:<key>`: an answer, JSON, with the
 *   group generation and family epoch it was kept under (shown only while
 *   both are current: a forget deletes nothing, the answer expires with its
 *   life);
 * - `teamwork:2:cache-gen:{<family>|<group>}`: the group's generation, a
 *   random id, living an hour past its last use (a group unused that long
 *   starts a new one);
 * - `teamwork:2:cache-gen:<family>`: the family's, `<epoch>:<random id>`,
 *   moved by every forget of the family, its epoch by a clear of every group;
 * - `teamwork:2:cache-lease:{<family>|<group>}:<key>`: the lease of the
 *   instance reading the key from Clerk (a random id, a couple of seconds at
 *   most: see shared-cache.server, single flight), dropped by the script that
 *   writes its answer.
 * The family's generation is in another slot than the group's keys (one slot
 * for a whole family would put all of a cache's traffic on one node): on a
 * cluster, what one Redis gets as one command or pipeline goes as one
 * command per slot (app/lib/redis-commands.server.ts): the hit path's one MGET
 * becomes two, sent at once.
 *
 * Format 1, the release before, kept the same keys without the `2:`. A
 * forget here also moves its generations (`previous`), so that while
 * both releases run, an answer it keeps is hidden by a change this release
 * heard of: its instances are told to forget their own copies by the same
 * message (server/coordination.ts).
 */
/** Where the store's keys start: this release's format's prefix, and the release's before (server/redis-keys.ts). */
export type CachePrefixes = { current: string; previous: string };
/** How long a group's generation outlives its last use: longer than any answer kept under it. */
const GROUP_LIFE_MS = 60 * 60_000;

/**
 * Drops a lease if it is still the one given, in one command: GETDEL, and
 * in the rare case that it was another's (this one lapsed and another
 * instance took the key), that one put back until it ends: a lease's id
 * starts with when it ends (see lead); one from the release before, whose id
 * does not, for 2 s, the longest a lease was held. Lua, for the scripts
 * below; KEYS[i]: the lease, ARGV[j]: its id.
 */
const dropLease = (i: number, j: number) => `
local holder = redis.call('GETDEL', KEYS[${i}])
if holder and holder ~= ARGV[${j}] then
  local ends = tonumber(string.match(holder, '^(%d+):'))
  if not ends then redis.call('SET', KEYS[${i}], holder, 'PX', 2000)
  elseif ends > tonumber(redis.call('TIME')[1]) * 1000 then redis.call('SET', KEYS[${i}], holder, 'PXAT', ends) end
end`;

/**
 * Keeps the answer only under the generation it was read under, in one step
 * (a forget between the check and the SET would otherwise be lost), and keeps
 * the generation alive as long as the answer. KEYS: the answer, its group's
 * generation; ARGV: the JSON, its life in ms, the group generation read, the
 * generation's life in ms. The generation is read and its life extended in
 * one command (GETEX): one that has moved on is extended too, which only
 * keeps it as long as an answer could be.
 *
 * With a third key, the writer's lease (ARGV[5] its id), drops the lease
 * first, kept or not: waiters see the answer no later than the lease gone.
 */
const WRITE_IF_UNCHANGED = `
if KEYS[3] then ${dropLease(3, 5)} end
if redis.call('GETEX', KEYS[2], 'PX', ARGV[4]) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Drops a lease if it is still the one given. KEYS: the lease; ARGV: its id. */
const RELEASE = `${dropLease(1, 1)}
return 0`;

/**
 * Moves the group's generation on and keeps the new answer under it, if the
 * generation is still the one `current` was read under ("" for none), in one
 * step (update). KEYS: the answer, its group's generation; ARGV: the
 * generation read, the new one, the JSON, its life in ms, the generation's
 * life in ms.
 */
const REPLACE_IF_UNCHANGED = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
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

/** Where a layout keeps a family's keys, from its prefix. */
function layout(prefix: string) {
  const tag = (family: string, group: string) => `{${family}|${group}}`;
  return {
    answer: (family: string, key: string) => `${prefix}cache:${tag(family, groupOf(key))}:${key}`,
    group: (family: string, group: string) => `${prefix}cache-gen:${tag(family, group)}`,
    family: (family: string) => `${prefix}cache-gen:${family}`,
    lease: (family: string, key: string) => `${prefix}cache-lease:${tag(family, groupOf(key))}:${key}`,
  };
}

/**
 * The caches' store shared by every instance (see the key layout above).
 * Generations are random ids (a counter would start again from nothing after
 * Redis restarts, and could meet a value read before). Commands fail at once
 * while Redis is away (the connection keeps no offline queue): a read is then
 * a miss, a write is dropped, and a forget fails for the caller to see. A
 * forget or clear runs a fixed handful of commands, whatever the keyspace
 * holds: it looks for no key, on one Redis or on a cluster.
 */
export function redisCacheStore(redis: SharedRedis, prefixes: CachePrefixes): CacheStore {
  const keys = layout(prefixes.current);
  const previous = layout(prefixes.previous);

  /** The commands that move a family's generation on, then a group's (in that order: see writeIfQuiet). */
  const moves = (at: ReturnType<typeof layout>, family: string, group: string): RedisCommand[] => [
    ["eval", MOVE_FAMILY, 1, at.family(family), randomUUID()],
    ["set", at.group(family, group), randomUUID(), "PX", GROUP_LIFE_MS],
  ];
  const moveOn = (family: string, group: string) =>
    inOrder(redis, [...moves(keys, family, group), ...moves(previous, family, group)]);
  const newEpoch = (at: ReturnType<typeof layout>, family: string): RedisCommand => [
    "set",
    at.family(family),
    `${randomUUID()}:${randomUUID()}`,
  ];

  /** An answer, its generations and (with `lease`) its lease, in one MGET per slot, sent at once. */
  const readWith = async (family: string, key: string, lease: boolean): Promise<Read & { leased: boolean }> => {
    const inGroup = [keys.answer(family, key), keys.group(family, groupOf(key))];
    if (lease) inGroup.push(keys.lease(family, key));
    const values = await mgetAcrossSlots(redis, [inGroup, [keys.family(family)]]);
    const [json = null, group = null] = values;
    const familyGeneration = values.at(-1) ?? null;
    const leased = lease && values[2] != null;
    const generation: Generation = { group, family: familyGeneration };
    if (json == null || group === null || familyGeneration === null) return { stored: null, generation, leased };
    const kept = JSON.parse(json) as Kept;
    const current = kept.group === group && kept.epoch === epochOf(familyGeneration);
    return { stored: current ? { value: kept.value, at: kept.at } : null, generation, leased };
  };

  const store: CacheStore = {
    async read(family, key) {
      // The hit path's one round trip: the answer and both generations together.
      const { stored, generation } = await readWith(family, key, false);
      return { stored, generation };
    },
    async start(family, key) {
      // Each set only where missing; GET says what was there (another instance's start, or a forget's).
      const [group, familyGeneration] = [randomUUID(), `${randomUUID()}:${randomUUID()}`];
      const [groupBefore, familyBefore] = (await together(redis, [
        ["set", keys.group(family, groupOf(key)), group, "PX", GROUP_LIFE_MS, "NX", "GET"],
        ["set", keys.family(family), familyGeneration, "NX", "GET"],
      ])) as (string | null)[];
      return { group: groupBefore ?? group, family: familyBefore ?? familyGeneration };
    },
    async write(family, key, stored, keepMs, generation, lease) {
      if (generation.group === null || generation.family === null) {
        if (lease !== undefined) await store.release(family, key, lease);
        return false;
      }
      const kept: Kept = { ...stored, group: generation.group, epoch: epochOf(generation.family) };
      const args = [JSON.stringify(kept), keepMs, generation.group, Math.max(keepMs, GROUP_LIFE_MS)];
      const [answer, group] = [keys.answer(family, key), keys.group(family, groupOf(key))];
      const written =
        lease === undefined
          ? await redis.eval(WRITE_IF_UNCHANGED, 2, answer, group, ...args)
          : await redis.eval(WRITE_IF_UNCHANGED, 3, answer, group, keys.lease(family, key), ...args, lease);
      return written === 1;
    },
    async writeIfQuiet(family, key, stored, keepMs, familyGeneration) {
      // The group's generation read before the family's: a forget moves the
      // family's first, so one that came after `familyGeneration` was read
      // either shows here or moves the group's before (refused) or after
      // (hidden) the write.
      const [group, current] = (await inOrder(redis, [
        ["get", keys.group(family, groupOf(key))],
        ["get", keys.family(family)],
      ])) as (string | null)[];
      if (current !== familyGeneration || group == null) return false;
      return store.write(family, key, stored, keepMs, { group, family: familyGeneration });
    },
    async delete(family, key) {
      await moveOn(family, groupOf(key));
    },
    async clear(family, prefix) {
      const group = groupNamedBy(prefix);
      if (group !== null) return void (await moveOn(family, group));
      // Every group: a new epoch hides every answer of the family at once.
      await inOrder(redis, [newEpoch(keys, family), newEpoch(previous, family)]);
    },
    async lead(family, key, holdMs) {
      // The id starts with when the lease ends (ms since the epoch), for a write that finds it another's.
      const lease = `${Date.now() + holdMs}:${randomUUID()}`;
      const taken = await redis.set(keys.lease(family, key), lease, "PX", holdMs, "NX");
      return taken === "OK" ? lease : null;
    },
    poll: (family, key) => readWith(family, key, true),
    async release(family, key, lease) {
      await redis.eval(RELEASE, 1, keys.lease(family, key), lease);
    },
    async update(family, key, next) {
      const group = groupOf(key);
      const { stored, generation } = await store.read(family, key);
      const replacement = next(stored);
      if (replacement === null) {
        await moveOn(family, group);
        return false;
      }
      // As a forget: the family's generation moves first (see writeIfQuiet), then the group's, here with
      // the new answer in one script, then the previous format's. The epoch is the one read: a clear of
      // every group since hides the new answer (a miss, never an answer from before the clear).
      const [familyId, groupId] = [randomUUID(), randomUUID()];
      const kept: Kept = {
        ...replacement.stored,
        group: groupId,
        epoch: generation.family === null ? familyId : epochOf(generation.family),
      };
      const [, replaced] = await inOrder(redis, [
        ["eval", MOVE_FAMILY, 1, keys.family(family), familyId],
        [
          "eval",
          REPLACE_IF_UNCHANGED,
          2,
          keys.answer(family, key),
          keys.group(family, group),
          generation.group ?? "",
          groupId,
          JSON.stringify(kept),
          replacement.keepMs,
          Math.max(replacement.keepMs, GROUP_LIFE_MS),
        ],
        ...moves(previous, family, group),
      ]);
      if (replaced === 1) return true;
      // The group moved since `current` was read (another change): forgotten instead.
      await moveOn(family, group);
      return false;
    },
  };
  return store;
}
