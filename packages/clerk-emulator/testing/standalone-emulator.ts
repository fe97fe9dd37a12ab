import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { NETWORK_GUARD_PATH } from "./network-guard";
import { spawnGroup, stopGroup } from "./process-group";

const CLI = join(import.meta.dirname, "../bin/clerk-emulator.mjs");

export type StandaloneEmulator = {
  /** Where it listens, and the secret key it printed for the app's `.env`. */
  url: string;
  secret: string;
  /** Everything it printed. */
  output(): string;
  stop(): Promise<void>;
};

/**
 * `npm run emulator` as another team runs it (the package's `bin/clerk-emulator.mjs`, in its
 * own process group, memory state, a free port), with `args` added; ready once
 * it has printed the app's `.env` lines. Its answers are recorded for the
 * contract check; it reaches nothing beyond loopback.
 */
export async function startStandaloneEmulator(args: string[]): Promise<StandaloneEmulator> {
  let output = "";
  const child: ChildProcess = spawnGroup(
    process.execPath,
    [CLI, "--port", "0", "--data-dir", "memory", ...args],
    // Where the tests run, an app's root, as `npx clerk-emulator` runs there (its node_modules hold clerk-js).
    process.cwd(),
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR,
      NODE_ENV: "test",
    },
  );
  const stop = () => stopGroup(child, "SIGKILL");
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the emulator did not start:\n${output}`)), 20_000);
      child.stdout?.on("data", (d: Buffer) => {
        output += d.toString();
        if (/^CLERK_PROXY_URL=/m.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
      child.once("exit", (code) => reject(new Error(`the emulator exited (${code}):\n${output}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: /listening on (http:\S+)/.exec(output)![1]!,
    secret: /^CLERK_SECRET_KEY=(.+)$/m.exec(output)![1]!,
    output: () => output,
    stop,
  };
}

/** One request's status and how long its whole answer took, in milliseconds. */
export async function timed(request: () => Promise<Response>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await request();
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}
