import { Cluster, type Redis } from "ioredis";

/**
 * A connection to one Redis or to a Redis Cluster (server/redis.ts connects
 * it). Both speak the same commands; on a cluster, a command's keys must
 * share a hash slot (a Lua script's too), and a pipeline's commands must go
 * to one node, so the helpers below ask `isCluster`.
 */
export type SharedRedis = Redis | Cluster;

export const isCluster = (redis: SharedRedis): redis is Cluster => redis instanceof Cluster;

/**
 * How a store names its keys in Redis: the release's format
 * (server/redis-keys.ts) hands each adapter its own, so no adapter knows it.
 */
export type KeyFormat = (name: string) => string;

/** A command and its arguments, as `redis.call` and a pipeline take them. */
export type RedisCommand = [name: string, ...args: (string | number)[]];

/** Throws the first command's error, as one command would. */
async function results(pipeline: ReturnType<SharedRedis["pipeline"]>): Promise<unknown[]> {
  const answers = (await pipeline.exec()) ?? [];
  const failed = answers.find(([error]) => error);
  if (failed) throw failed[0];
  return answers.map(([, result]) => result);
}

/**
 * Runs the commands in order, each after the one before has been carried
 * out. On one Redis that is one pipeline, one round trip; on a cluster their
 * keys may live on different nodes, which one pipeline cannot reach, so each
 * waits for the one before (a round trip each).
 */
export async function inOrder(redis: SharedRedis, commands: RedisCommand[]): Promise<unknown[]> {
  if (!isCluster(redis)) return results(redis.pipeline(commands));
  const answers: unknown[] = [];
  for (const [name, ...args] of commands) answers.push(await redis.call(name, args));
  return answers;
}

/**
 * Runs commands whose order does not matter, in one round trip: one
 * pipeline on one Redis, on a cluster each sent at once to its own node.
 */
export function together(redis: SharedRedis, commands: RedisCommand[]): Promise<unknown[]> {
  if (!isCluster(redis)) return results(redis.pipeline(commands));
  return Promise.all(commands.map(([name, ...args]) => redis.call(name, args)));
}

/**
 * An MGET of keys in several slots, each group's in one: one command on one
 * Redis; on a cluster, one per group, sent at once. The values in order.
 */
export async function mgetAcrossSlots(redis: SharedRedis, groups: string[][]): Promise<(string | null)[]> {
  if (!isCluster(redis)) return redis.mget(groups.flat());
  return (await Promise.all(groups.map((keys) => redis.mget(keys)))).flat();
}
