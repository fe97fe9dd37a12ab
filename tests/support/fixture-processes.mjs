// The steps that start an SDK-line fixture (tests/fixtures/core2, tests/fixtures/core3) behind its
// /__clerk proxy rule on `npm run emulator`, for the tests (tests/support/fixture-app.ts) and for
// `npm run audit --quickstart` (scripts/audit.mjs): plain JavaScript, as Node 20 runs the audit.
// Each caller starts the processes its own way (`start`: its environment, its output, its process
// groups) and stops them.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (tests/support/server.ts names it for the TypeScript helpers). */
const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");

/**
 * Starts `node ...args` in `cwd`, in a process group of its own, with `env` over the caller's own
 * variables, and keeps the child for the caller to stop.
 * @callback StartNode
 * @param {string[]} args
 * @param {Record<string, string | undefined> & { NODE_ENV: string }} env
 * @param {string} cwd
 * @returns {import("node:child_process").ChildProcess}
 */

/**
 * A build folder for one start of tests/fixtures/core2, inside its `.cache/` (its server build
 * resolves @clerk/remix from the repository's node_modules). `buildEnv` names it for the build and
 * for the app's server.
 * @param {string} fixture the fixture's folder
 * @param {string} prefix the folder's name begins with it
 * @returns {{ buildEnv: Record<string, string>, removeBuild(): void }}
 */
export function core2BuildFolder(fixture, prefix) {
  mkdirSync(join(fixture, ".cache"), { recursive: true });
  const dir = mkdtempSync(join(fixture, ".cache", prefix));
  return {
    buildEnv: { CORE2_BUILD_DIR: relative(fixture, dir) },
    removeBuild: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Builds tests/fixtures/core2 with Remix's CLI into the folder `buildEnv` names.
 * @param {string} fixture the fixture's folder
 * @param {Record<string, string>} buildEnv from `core2BuildFolder`
 * @param {string} what the app, as the error names it
 */
export function buildCore2(fixture, buildEnv, what) {
  const build = spawnSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "build", fixture], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...buildEnv, NODE_ENV: "production" },
  });
  if (build.status !== 0) throw new Error(`${what}'s build failed:\n${build.stdout}\n${build.stderr}`);
}

/**
 * Starts the emulator (keeping nothing on disk) for an app at `appUrl` with its /__clerk proxy, and
 * waits up to 30 s for the lines it prints for the app's `.env` (CLERK_SECRET_KEY, CLERK_API_URL…).
 * @param {StartNode} start its stdout piped
 * @param {object} options
 * @param {number} options.port the emulator's
 * @param {string} options.appUrl the app's origin
 * @param {string[]} [options.args] more of the emulator's options
 * @param {Record<string, string | undefined> & { NODE_ENV: string }} options.env
 * @param {() => string} [options.output] what the error shows if the lines never come (by default, the emulator's stdout)
 * @returns {Promise<Record<string, string>>} the printed variables
 */
export async function startEmulator(start, { port, appUrl, args = [], env, output }) {
  const emulator = start(
    [
      // The package's bin, as the app has it installed.
      "node_modules/clerk-emulator/bin/clerk-emulator.mjs",
      ...["--port", String(port), "--data-dir", "memory", "--proxy-url", `${appUrl}/__clerk`],
      ...args,
    ],
    env,
    ROOT,
  );
  let printed = "";
  emulator.stdout?.on("data", (chunk) => (printed += chunk));
  const deadline = Date.now() + 30_000;
  while (!/^CLERK_PROXY_URL=.*$/m.test(printed)) {
    if (Date.now() > deadline)
      throw new Error(`the emulator printed no .env lines within 30 s:\n${output ? output() : printed}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Object.fromEntries([...printed.matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1], m[2]]));
}

/**
 * Starts the fixture's `server.mjs` (production) on `port`, with the emulator's variables.
 * @param {StartNode} start
 * @param {object} options
 * @param {"core2" | "core3"} options.line
 * @param {string} options.fixture the fixture's folder
 * @param {Record<string, string>} options.env what the emulator printed
 * @param {Record<string, string>} options.buildEnv where the build is
 * @param {string} options.appUrl the app's origin
 * @param {string} options.emulatorUrl the emulator's origin
 * @param {number} options.port the app's
 * @returns {import("node:child_process").ChildProcess}
 */
export function startFixtureServer(start, { line, fixture, env, buildEnv, appUrl, emulatorUrl, port }) {
  return start(
    ["server.mjs"],
    {
      ...env,
      // @clerk/shared builds clerk-js's URL from proxyUrl as https://<host>/npm/…, so Core 2 on an
      // http:// origin names the emulator's CDN path itself (Core 3 takes the relative proxyUrl).
      ...(line === "core2"
        ? { CLERK_JS: `${appUrl}/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js`, CLERK_TELEMETRY_DISABLED: "1" }
        : {}),
      CLERK_EMULATOR_URL: emulatorUrl,
      ...buildEnv,
      PORT: String(port),
      NODE_ENV: "production",
    },
    fixture,
  );
}
