import type { ChildProcess } from "node:child_process";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { spawnGroup, stopGroup, waitForPort } from "./process-group";
import { freePort } from "./server";

/**
 * A real Redis Cluster from Debian's redis-server on loopback: three
 * primaries, each with one replica, as a small production cluster is laid
 * out. A node can be killed (a primary's replica is then promoted, as in a
 * failover), started again (it rejoins as a replica), and every process is
 * stopped with its group.
 */
export type ClusterNode = { port: number; url: string };

export type RedisCluster = {
  /** Every node's `redis://` URL, for REDIS_CLUSTER_URLS (the client learns the layout from any of them). */
  urls: string[];
  nodes: ClusterNode[];
  /** The primary serving the slot of `key` now. */
  primaryFor(key: string): Promise<ClusterNode>;
  /** The primaries now (nodes serving slots). */
  primaries(): Promise<ClusterNode[]>;
  /** Kills the node's process group (SIGKILL: a crash, nothing flushed or said to the others). */
  kill(node: ClusterNode, signal?: NodeJS.Signals): Promise<void>;
  /** Waits until the live nodes have flagged `killed` as failed (cluster_state:fail until a replica is elected): ms from `since`. */
  failed(killed: ClusterNode, since: number): Promise<number>;
  /**
   * Waits until the slots `killed` served are served by another node and
   * every live node says cluster_state:ok: the node now serving them, how
   * long the failover took from `since`, and `downUntil`, a time (ms since
   * the epoch) the cluster was still seen failed or without the slots'
   * new primary (the failover ended between it and `since + tookMs`).
   */
  failover(killed: ClusterNode, since: number): Promise<{ promoted: ClusterNode; tookMs: number; downUntil: number }>;
  /** Starts a killed node again on its port and configuration: it rejoins as a replica, in sync. */
  restart(node: ClusterNode): Promise<void>;
  /** FLUSHALL on every primary (what replicas keep follows). */
  flushAll(): Promise<void>;
  /** Calls per command on `node` since its stats were reset (INFO commandstats), e.g. `{ scan: 0 }`. */
  commandCalls(node: ClusterNode): Promise<Record<string, number>>;
  /** Errors by kind on `node` (INFO errorstats), e.g. `{ CROSSSLOT: 1 }`. */
  errorCounts(node: ClusterNode): Promise<Record<string, number>>;
  /** CONFIG RESETSTAT on every live node. */
  resetStats(): Promise<void>;
  /** Runs `act` with a plain (non-cluster) connection to one node. */
  on<T>(node: ClusterNode, act: (redis: Redis) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
};

const NODES = 6;
/**
 * Short, so a failover takes a second or two rather than Redis's default
 * 15 s: a node unheard of for this long is suspected, then failed by a
 * majority of primaries, and its replica elected.
 */
const NODE_TIMEOUT_MS = 1_000;

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

const until = async <T>(what: string, check: () => Promise<T | null | undefined | false>, ms: number) => {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result) return result;
    } catch (error) {
      // A node not yet answering, or mid-election: asked again.
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${ms} ms${lastError ? ` (${String(lastError)})` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const parseInfo = (info: string) =>
  Object.fromEntries(
    info
      .split("\r\n")
      .filter((line) => line.includes(":"))
      .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1)]),
  );

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), "teamwork-redis-cluster-"));
  // Each node's client port and cluster bus port chosen free (the default bus
  // port, port + 10000, may be taken or past 65535).
  const ports = await distinctFreePorts(NODES * 2);
  const nodes: ClusterNode[] = ports.slice(0, NODES).map((port) => ({ port, url: `redis://127.0.0.1:${port}` }));
  const busPort = new Map(nodes.map((node, i) => [node.port, ports[NODES + i]!]));
  const processes = new Map<number, ChildProcess>();
  /** A slot each killed primary served, by port. */
  const slotOf = new Map<number, number>();

  const launch = async (node: ClusterNode) => {
    const child = spawnGroup(
      "redis-server",
      [
        "--port",
        String(node.port),
        "--cluster-port",
        String(busPort.get(node.port)),
        "--bind",
        "127.0.0.1",
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        join(dir, `nodes-${node.port}.conf`),
        "--cluster-node-timeout",
        String(NODE_TIMEOUT_MS),
        "--save",
        "",
        "--appendonly",
        "no",
        // A replica's first sync starts at once (Redis waits 5 s for more replicas by default).
        "--repl-diskless-sync-delay",
        "0",
        "--dir",
        dir,
      ],
      dir,
    );
    processes.set(node.port, child);
    await waitForPort(node.port, "redis-server (cluster node)");
  };

  const on = async <T>(node: ClusterNode, act: (redis: Redis) => Promise<T>): Promise<T> => {
    // A connection per use: a killed node must not leave a client reconnecting to it.
    const redis = new Redis(node.port, "127.0.0.1", {
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
    });
    redis.on("error", () => undefined);
    try {
      await redis.connect();
      return await act(redis);
    } finally {
      redis.disconnect();
    }
  };
  const alive = () =>
    nodes.filter((node) => processes.get(node.port)?.exitCode === null && !processes.get(node.port)?.signalCode);
  const byPort = (port: number) => {
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node of this cluster on port ${port}`);
    return node;
  };
  type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];
  const slots = (node: ClusterNode) => on(node, async (r) => (await r.call("CLUSTER", "SLOTS")) as SlotRange[]);
  const info = (node: ClusterNode, section = "cluster") =>
    on(node, async (r) =>
      parseInfo(section === "cluster" ? String(await r.call("CLUSTER", "INFO")) : await r.info(section)),
    );

  /** Whether every live node sees a whole, healthy cluster with `primaries` serving every slot. */
  const settled = async (primaryCount: number, replicaCount: number) => {
    for (const node of alive()) {
      const state = await info(node);
      if (state.cluster_state !== "ok" || state.cluster_slots_ok !== "16384") return false;
      if (Number(state.cluster_size) !== primaryCount) return false;
    }
    // Each replica's link to its primary is up (it holds a copy to be promoted with).
    let linked = 0;
    for (const node of alive()) {
      const replication = await info(node, "replication");
      if (replication.role === "slave" && replication.master_link_status === "up") linked++;
    }
    return linked === replicaCount;
  };

  const stop = async () => {
    await Promise.all([...processes.values()].map((child) => stopGroup(child, "SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(nodes.map(launch));
    await promisify(execFile)(
      "redis-cli",
      ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "1", "--cluster-yes"],
      { timeout: 20_000 },
    );
    await until("the cluster to be formed", () => settled(3, 3), 20_000);
  } catch (error) {
    await stop();
    throw error;
  }

  const primaryFor = async (key: string) => {
    const [any] = alive();
    const slot = await on(any!, async (r) => Number(await r.call("CLUSTER", "KEYSLOT", key)));
    const range = (await slots(any!)).find(([start, end]) => slot >= start && slot <= end);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return byPort(range[2][1]);
  };

  /** The live node every live node agrees serves `slot`, with cluster_state:ok on all; null while they do not. */
  const takerOf = async (slot: number) => {
    let taker: number | null = null;
    for (const node of alive()) {
      if ((await info(node)).cluster_state !== "ok") return null;
      const range = (await slots(node)).find(([start, end]) => slot >= start && slot <= end);
      if (!range || !alive().some((n) => n.port === range[2][1]) || (taker !== null && range[2][1] !== taker)) {
        return null;
      }
      taker = range[2][1];
    }
    return taker === null ? null : byPort(taker);
  };

  const primaries = async () => {
    const [any] = alive();
    return [...new Set((await slots(any!)).map((range) => range[2][1]))].map(byPort);
  };

  return {
    urls: nodes.map((n) => n.url),
    nodes,
    primaryFor,
    primaries,
    async kill(node, signal = "SIGKILL") {
      // A slot it serves (if a primary), to know later who took over.
      const [any] = alive().filter((n) => n.port !== node.port);
      const served = (await slots(any!)).find((range) => range[2][1] === node.port);
      if (served) slotOf.set(node.port, served[0]);
      await stopGroup(processes.get(node.port) ?? null, signal);
    },
    async failed(killed, since) {
      await until(
        `the cluster to flag ${killed.url} as failed`,
        async () => {
          for (const node of alive()) {
            const nodesLine = String(await on(node, (r) => r.call("CLUSTER", "NODES")))
              .split("\n")
              .find((line) => line.includes(`:${killed.port}@`));
            if (!nodesLine || !/[ ,]fail[ ,]/.test(nodesLine)) return false;
          }
          return true;
        },
        20_000,
      );
      return Date.now() - since;
    },
    async failover(killed, since) {
      const slot = slotOf.get(killed.port);
      if (slot === undefined) throw new Error(`${killed.url} served no slot when it was killed`);
      let downUntil = since;
      const promoted = await until(
        `a replica to take over ${killed.url}'s slots`,
        async () => {
          // (Before the nodes are asked: what they say is true of this moment at the least.)
          const asked = Date.now();
          const taker = await takerOf(slot);
          if (taker === null) downUntil = asked;
          return taker;
        },
        20_000,
      );
      return { promoted, tookMs: Date.now() - since, downUntil };
    },
    async restart(node) {
      await launch(node);
      await until(
        `${node.url} to rejoin as a replica`,
        async () => {
          const replication = await info(node, "replication");
          return (
            replication.role === "slave" &&
            replication.master_link_status === "up" &&
            (await info(node)).cluster_state === "ok"
          );
        },
        20_000,
      );
    },
    async flushAll() {
      for (const node of await primaries()) await on(node, (r) => r.flushall());
    },
    async commandCalls(node) {
      const stats = await on(node, (r) => r.info("commandstats"));
      const calls: Record<string, number> = {};
      for (const [, name, count] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[name!] = Number(count);
      return calls;
    },
    async errorCounts(node) {
      const stats = await on(node, (r) => r.info("errorstats"));
      const errors: Record<string, number> = {};
      for (const [, name, count] of stats.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) errors[name!] = Number(count);
      return errors;
    },
    async resetStats() {
      for (const node of alive()) await on(node, (r) => r.config("RESETSTAT"));
    },
    on,
    stop,
  };
}
