import { spawn, type ChildProcess } from "node:child_process";

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

/** A child and what it has printed so far. */
export type GroupChild = ChildProcess & { output: () => string };

/**
 * A child in its own process group, so stopping it stops everything it started; `env` replaces this
 * process's. Its output is kept, for a test's failure message.
 */
export function spawnGroup(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): GroupChild {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid) groups.add(child.pid);
  child.once("exit", () => groups.delete(child.pid!));
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  return Object.assign(child, { output: () => output });
}

/** Stops the child's whole group with `signal`, and with SIGKILL if it still runs 5 s later. */
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
