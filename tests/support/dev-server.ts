import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { NETWORK_GUARD_MARK, NETWORK_GUARD_PATH } from "./guard";
import { freePort, ROOT } from "./server";

const NOT_COPIED = new Set([
  "node_modules",
  ".git",
  "build",
  ".data",
  ".cache",
  // A developer's own settings (Clerk keys) would take the copy out of local mode.
  ".env",
  "test-results",
  "tests",
  "bench",
  "docs",
]);

export type DevServer = {
  origin: string;
  /** remix dev's own port: its socket brings the browser hot updates. */
  devPort: number;
  output(): string;
  /** Replaces `from` by `to` in one of the copy's files; returns when it wrote (performance.now()). */
  edit(file: string, from: string, to: string): number;
  /** Waits until `check` holds (polling), or throws with the dev server's last output. */
  until<T>(what: string, check: () => Promise<T | undefined | false>, ms?: number): Promise<T>;
  /** Kills the whole process group and removes the copy. */
  stop(): Promise<void>;
};

/**
 * The copy's node_modules: the installed packages linked in, but the workspace's
 * own (the emulator) linked to the copy's packages/, so that what the dev server
 * loads or bundles through a package name is the copy's, and an edit there is seen.
 */
function linkNodeModules(root: string, copy: string) {
  const modules = join(copy, "node_modules");
  const workspace = new Map<string, string>();
  const packages = join(copy, "packages");
  for (const folder of existsSync(packages) ? readdirSync(packages) : []) {
    const manifest = join(packages, folder, "package.json");
    if (existsSync(manifest))
      workspace.set((JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name, folder);
  }
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (!workspace.has(name)) symlinkSync(join(root, "node_modules", name), join(modules, name));
  }
  // (Unscoped names: a scope's folder is one link to the installed one.)
  for (const [name, folder] of workspace) symlinkSync(join(packages, folder), join(modules, name));
}

/**
 * `npm run dev` on a copy of the app (its own build/ and .data/; the installed
 * node_modules linked in), in local mode with the emulator's control API, as
 * one process group of its own. (`root`: the app's folder, for a bundle that
 * does not sit in tests/support.)
 */
export async function startDevServer(root = ROOT): Promise<DevServer> {
  const copy = mkdtempSync(join(tmpdir(), "teamwork-dev-"));
  cpSync(root, copy, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source);
      return !NOT_COPIED.has(path.split("/")[0] ?? "") && path !== join("public", "build");
    },
  });
  linkNodeModules(root, copy);

  const [port, devPort] = [await freePort(), await freePort()];
  const origin = `http://localhost:${port}`;
  let output = "";
  const dev = spawn("npm", ["run", "dev", "--", "--port", String(devPort)], {
    cwd: copy,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "development",
      PORT: String(port),
      CLERK_TELEMETRY_DISABLED: "1",
      CLERK_EMULATOR_CONTROL: "1",
      // (As tests/support/server.ts: a loaded test machine, not the app, makes timers late.)
      SHED_EVENT_LOOP_DELAY_MS: "0",
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
    },
  });
  const exited = new Promise((done) => dev.once("exit", done));
  // The whole group, even when npm (its leader) has exited and left the rest running.
  const kill = () => {
    try {
      if (dev.pid) process.kill(-dev.pid, "SIGKILL");
    } catch {
      // no one left in the group
    }
  };
  process.once("exit", kill);
  dev.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  dev.stderr?.on("data", (d: Buffer) => (output += d.toString()));

  const server: DevServer = {
    origin,
    devPort,
    output: () => output,
    edit(file, from, to) {
      const path = join(copy, file);
      const source = readFileSync(path, "utf8");
      if (!source.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
      writeFileSync(path, source.replace(from, to));
      return performance.now();
    },
    async until(what, check, ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await check().catch(() => undefined);
        if (value) return value;
        if (Date.now() > deadline || dev.exitCode !== null) {
          throw new Error(`${what}: not seen\n${output.slice(-3000)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      kill();
      await exited;
      process.off("exit", kill);
      rmSync(copy, { recursive: true, force: true });
      if (output.includes(NETWORK_GUARD_MARK))
        throw new Error(`the dev server tried to reach beyond loopback:\n${output}`);
    },
  };
  try {
    await server.until("the dev server answering", async () => (await fetch(`${origin}/healthz`)).ok, 120_000);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
