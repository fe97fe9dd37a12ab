import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";
import { buildCore2, core2BuildFolder, startEmulator, startFixtureServer } from "./fixture-processes.mjs";
import { loopbackOnlyContext, NETWORK_GUARD_PATH } from "./guard";
import { spawnGroup, stopGroup, waitForPort } from "./process-group";
import { freePort, ROOT } from "./server";

/**
 * One of the two SDK-line fixtures (tests/fixtures/core2: @clerk/remix 4 with
 * clerk-js 5; tests/fixtures/core3: @clerk/react-router 3 with clerk-js 6 and
 * @clerk/ui), built, behind its /__clerk proxy rule, against `npm run emulator`
 * in its own process, with a Chromium to drive it. Every process runs in its
 * own group, reaches nothing beyond loopback, and is killed by `stop`.
 */
export type FixtureLine = "core2" | "core3";

export type RunningFixture = {
  line: FixtureLine;
  /** The app's origin (Core 2 on `localhost`, as its quickstart; Core 3 on `127.0.0.1`). */
  appUrl: string;
  /** The emulator itself, for its control API. */
  emulatorUrl: string;
  /** The lines the emulator printed for the app's `.env` (CLERK_SECRET_KEY, CLERK_API_URL…). */
  env: Record<string, string>;
  browser: Browser;
  /** A browser context whose requests beyond loopback are refused and listed in `offLoopback`. */
  newContext(): Promise<BrowserContext>;
  offLoopback: string[];
  /** Everything the processes printed. */
  output(): string;
  stop(): Promise<void>;
};

export async function startFixture(line: FixtureLine): Promise<RunningFixture> {
  const fixture = join(ROOT, "tests/fixtures", line);
  const groups: ChildProcess[] = [];
  let output = "";
  const start = (args: string[], env: Record<string, string | undefined> & { NODE_ENV: string }, cwd: string) => {
    const child = spawnGroup(process.execPath, args, cwd, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      ...env,
    } as NodeJS.ProcessEnv);
    groups.push(child);
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    return child;
  };
  let browser: Browser | undefined;
  const cleanUps: (() => void)[] = [];
  const stop = async () => {
    await browser?.close();
    for (const child of groups.reverse()) await stopGroup(child, "SIGKILL");
    for (const cleanUp of cleanUps) cleanUp();
  };

  try {
    // The fixture's own build, every run (a few seconds), into a folder of this start's own: a test never
    // runs a stale build, and two test files building at once (react-router build empties its folder
    // first) never remove each other's.
    if (line === "core3" && !existsSync(join(fixture, "node_modules/@clerk/react-router")))
      throw new Error("tests/fixtures/core3 is not installed: npm ci --prefix tests/fixtures/core3");
    const { buildEnv, removeBuild } = ownBuildFolder(line, fixture);
    cleanUps.push(removeBuild);
    if (line === "core2") buildCore2(fixture, buildEnv, `the ${line} fixture`);
    else {
      const build = spawnSync(process.execPath, ["node_modules/@react-router/dev/bin.js", "build"], {
        cwd: fixture,
        encoding: "utf8",
        env: { ...process.env, ...buildEnv },
      });
      if (build.status !== 0) throw new Error(`the ${line} fixture's build failed:\n${build.stdout}\n${build.stderr}`);
    }

    const [emulatorPort, appPort] = [await freePort(), await freePort()];
    const appUrl = `http://${line === "core2" ? "localhost" : "127.0.0.1"}:${appPort}`;
    const emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
    const env = await startEmulator(start, {
      port: emulatorPort,
      appUrl,
      args: line === "core3" ? ["--npm-dir", join(fixture, "node_modules")] : [],
      // Every answer recorded for the contract check (tests/support/contract-setup.ts).
      env: { CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR, NODE_ENV: "test" },
      output: () => output,
    });
    startFixtureServer(start, { line, fixture, env, buildEnv, appUrl, emulatorUrl, port: appPort });
    await waitForPort(appPort, `the ${line} fixture`);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const offLoopback: string[] = [];
    const launched = browser;
    return {
      line,
      appUrl,
      emulatorUrl,
      env,
      browser: launched,
      offLoopback,
      newContext: () => loopbackOnlyContext(launched, offLoopback),
      output: () => output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A build folder for one fixture start: Core 2's inside its `.cache/` (its server build resolves
 * @clerk/remix from the repository's node_modules), Core 3's in the system's temporary folder with a
 * link to the fixture's node_modules. The variable names it for the build and for the app's server.
 */
function ownBuildFolder(line: FixtureLine, fixture: string): { buildEnv: Record<string, string>; removeBuild(): void } {
  if (line === "core2") return core2BuildFolder(fixture, "build-");
  const dir = mkdtempSync(join(tmpdir(), "core3-build-"));
  symlinkSync(join(fixture, "node_modules"), join(dir, "node_modules"));
  return { buildEnv: { CORE3_BUILD_DIR: dir }, removeBuild: () => rmSync(dir, { recursive: true, force: true }) };
}
