import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./server";

import { spawnGroup, stopGroup } from "clerk-emulator/testing";

// Process groups (spawned, stopped, never outliving the test process): the emulator package's helpers.
export { spawnGroup, stopGroup };

export async function waitForPort(port: number, what: string) {
  const { connect } = await import("node:net");
  const deadline = Date.now() + 15_000;
  for (;;) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        done(true);
      });
      socket.on("error", () => done(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type RedisServer = {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
};

/** Debian's redis-server on a free loopback port, keeping nothing on disk; `stop` then `start` is Redis restarting empty. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "teamwork-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawnGroup(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
        dir,
      );
      await waitForPort(port, "redis-server");
    },
    stop: (signal = "SIGTERM") => stopGroup(child, signal),
  };
  await server.start();
  return server;
}
