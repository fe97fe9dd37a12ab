import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./server";

// Process groups still running; none outlives the test process, even when a test fails half-way.
const groups = new Set<number>();
process.once("exit", () => {
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** A child in its own process group, so stopping it stops everything it started; `env` replaces this process's. */
export function spawnGroup(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid) groups.add(child.pid);
  child.once("exit", () => groups.delete(child.pid!));
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  (child as ChildProcess & { output: () => string }).output = () => output;
  return child;
}

export async function stopGroup(child: ChildProcess | null, signal: NodeJS.Signals = "SIGTERM") {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

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
