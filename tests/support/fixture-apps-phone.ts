import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";
import { isLoopbackUrl, NETWORK_GUARD_PATH } from "./guard";
import { spawnGroup, stopGroup, waitForPort } from "./process-group";
import { freePort, ROOT } from "./server";

/**
 * Clerk's two SDK lines as the fixture tests start them (fixture-core2.test.ts,
 * fixture-core3.test.ts): the fixture app built, `npm run emulator` in its own
 * process with its answers recorded for the contract check, the app behind the
 * one /__clerk proxy rule, and Chromium. For the phone-number and username
 * flows in Clerk's own components.
 */
export type Line = "core2" | "core3";

export type FixtureApp = {
  appUrl: string;
  browser: Browser;
  /** The emulator's Backend API with the instance's secret key. */
  bapi: (method: string, path: string, body?: Record<string, unknown>) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
  stop(): Promise<void>;
};

const FIXTURES: Record<Line, { dir: string; build: string[]; built: string; clerkJs: string | null }> = {
  core2: {
    dir: join(ROOT, "tests/fixtures/core2"),
    build: [join(ROOT, "node_modules/@remix-run/dev/dist/cli.js"), "build", join(ROOT, "tests/fixtures/core2")],
    built: ".cache/build/index.js",
    clerkJs: "/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js",
  },
  core3: {
    dir: join(ROOT, "tests/fixtures/core3"),
    build: ["node_modules/@react-router/dev/bin.js", "build"],
    built: "build/server/index.js",
    clerkJs: null,
  },
};

/** The newest change to a fixture's own sources (its app, configs and server). */
function newestSource(dir: string): number {
  const walk = (path: string): number => {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => walk(join(path, name))));
  };
  const top = readdirSync(dir).filter(
    (name) => !["node_modules", "build", ".cache", "package-lock.json"].includes(name),
  );
  return Math.max(...top.map((name) => walk(join(dir, name))));
}

export async function startFixtureApp(line: Line): Promise<FixtureApp> {
  const fixture = FIXTURES[line];
  const children: ChildProcess[] = [];
  let output = "";
  const start = (args: string[], env: Record<string, string | undefined>, cwd: string) => {
    const child = spawnGroup(process.execPath, args, cwd, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      ...env,
    } as unknown as NodeJS.ProcessEnv);
    children.push(child);
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    return child;
  };
  const stop = async () => {
    for (const child of children.reverse()) await stopGroup(child, "SIGKILL");
  };

  try {
    // Built unless the build is newer than every source: the fixture tests build the same folders.
    const built = join(fixture.dir, fixture.built);
    if (!existsSync(built) || statSync(built).mtimeMs < newestSource(fixture.dir)) {
      const build = spawnSync(process.execPath, fixture.build, {
        cwd: fixture.dir,
        encoding: "utf8",
        env: { ...process.env, NODE_ENV: "production" },
      });
      if (build.status !== 0) throw new Error(`${line} build failed:\n${build.stdout}\n${build.stderr}`);
    }

    const [emulatorPort, appPort] = [await freePort(), await freePort()];
    // As the fixture tests reach each app: Core 2 on localhost, Core 3 on 127.0.0.1.
    const appUrl = `http://${line === "core2" ? "localhost" : "127.0.0.1"}:${appPort}`;
    start(
      [
        "scripts/emulator.mjs",
        "--port",
        String(emulatorPort),
        "--data-dir",
        "memory",
        "--proxy-url",
        `${appUrl}/__clerk`,
        ...(line === "core3" ? ["--npm-dir", join(fixture.dir, "node_modules")] : []),
      ],
      { CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR, NODE_ENV: "test" },
      ROOT,
    );
    const deadline = Date.now() + 30_000;
    while (!/^CLERK_PROXY_URL=.*$/m.test(output)) {
      if (Date.now() > deadline) throw new Error(`the emulator printed no settings within 30 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const env = Object.fromEntries([...output.matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
    start(
      ["server.mjs"],
      {
        ...env,
        ...(fixture.clerkJs ? { CLERK_JS: `${appUrl}${fixture.clerkJs}` } : {}),
        CLERK_TELEMETRY_DISABLED: "1",
        CLERK_EMULATOR_URL: `http://127.0.0.1:${emulatorPort}`,
        PORT: String(appPort),
        NODE_ENV: "production",
      },
      fixture.dir,
    );
    await waitForPort(appPort, `the ${line} fixture`);
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const bapi = async (method: string, path: string, body?: Record<string, unknown>) => {
      const res = await fetch(`${env.CLERK_API_URL}/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${env.CLERK_SECRET_KEY}`, "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    return {
      appUrl,
      browser,
      bapi,
      async stop() {
        await browser.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `<UserProfile/>` as it is, for a person to look at (not compared): test-results/fixture-phone/<line>-user-profile.png. */
export async function screenshot(page: Page, line: Line): Promise<void> {
  await page.screenshot({
    path: join(ROOT, "test-results/fixture-phone", `${line}-user-profile.png`),
    animations: "disabled",
  });
}

/** A browser context whose requests beyond loopback are refused, and listed in `offLoopback`. */
export async function loopbackContext(browser: Browser): Promise<{ context: BrowserContext; offLoopback: string[] }> {
  const context = await browser.newContext();
  const offLoopback: string[] = [];
  await context.route(
    (url) => !isLoopbackUrl(url.href),
    (route) => {
      offLoopback.push(route.request().url());
      return route.abort();
    },
  );
  return { context, offLoopback };
}
