import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NETWORK_GUARD_PATH } from "./guard";
import { spawnGroup, stopGroup, waitForPort } from "./process-group";
import { freePort, ROOT } from "./server";

export const CORE3_FIXTURE = join(ROOT, "tests/fixtures/core3");

export type Core3Fixture = {
  /** The app's origin; the emulator is behind its `/__clerk` proxy rule. */
  appUrl: string;
  emulatorUrl: string;
  /** What the emulator printed for the app's `.env` (`CLERK_PUBLISHABLE_KEY`, `CLERK_SECRET_KEY`, `CLERK_API_URL`…). */
  env: Record<string, string>;
  /** Both processes' output so far, for failure messages. */
  output: () => string;
  /** Stops both process groups and removes the build; safe to call after a failed start. */
  stop: () => Promise<void>;
};

/**
 * Core 3's fixture app (tests/fixtures/core3) built into a directory of its own and served by its
 * Express server, with `npm run emulator` (memory state) behind the app's proxy rule. Every emulator
 * answer is recorded for the contract check (CLERK_EMULATOR_RECORD_DIR).
 */
export async function startCore3Fixture(): Promise<Core3Fixture> {
  if (!existsSync(join(CORE3_FIXTURE, "node_modules/@clerk/react-router")))
    throw new Error("tests/fixtures/core3 is not installed: npm ci --prefix tests/fixtures/core3 (npm test does it)");
  // Outside the fixture, so that another test file's build (react-router build empties its build
  // directory first) never removes this one; the link lets the server build find its packages.
  const buildDir = mkdtempSync(join(tmpdir(), "core3-build-"));
  symlinkSync(join(CORE3_FIXTURE, "node_modules"), join(buildDir, "node_modules"));
  const groups: ChildProcess[] = [];
  let output = "";
  const fixture: Core3Fixture = {
    appUrl: "",
    emulatorUrl: "",
    env: {},
    output: () => output,
    stop: async () => {
      for (const child of groups.reverse()) await stopGroup(child, "SIGKILL");
      rmSync(buildDir, { recursive: true, force: true });
    },
  };
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
  };
  try {
    const build = spawnSync(process.execPath, ["node_modules/@react-router/dev/bin.js", "build"], {
      cwd: CORE3_FIXTURE,
      env: { ...process.env, CORE3_BUILD_DIR: buildDir },
      encoding: "utf8",
    });
    if (build.status !== 0) throw new Error(`react-router build failed:\n${build.stdout}\n${build.stderr}`);

    const [emulatorPort, appPort] = [await freePort(), await freePort()];
    fixture.appUrl = `http://127.0.0.1:${appPort}`;
    fixture.emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
    start(
      [
        "scripts/emulator.mjs",
        ...["--port", String(emulatorPort), "--data-dir", "memory"],
        ...["--proxy-url", `${fixture.appUrl}/__clerk`, "--npm-dir", join(CORE3_FIXTURE, "node_modules")],
      ],
      { CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR, NODE_ENV: "test" },
      ROOT,
    );
    const deadline = Date.now() + 20_000;
    while (!/^CLERK_PROXY_URL=.*$/m.test(output)) {
      if (Date.now() > deadline) throw new Error(`the emulator printed no .env within 20 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    fixture.env = Object.fromEntries([...output.matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
    start(
      ["server.mjs"],
      {
        ...fixture.env,
        CLERK_EMULATOR_URL: fixture.emulatorUrl,
        CORE3_BUILD_DIR: buildDir,
        PORT: String(appPort),
        NODE_ENV: "production",
      },
      CORE3_FIXTURE,
    );
    await waitForPort(appPort, "the Core 3 fixture").catch((error: Error) => {
      throw new Error(`${error.message}:\n${output}`);
    });
    return fixture;
  } catch (error) {
    await fixture.stop();
    throw error;
  }
}
