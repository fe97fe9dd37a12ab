/**
 * The processes the bench starts (each `node` with a production environment,
 * stopped together at the end) and what it reads of them: CPU time from
 * /proc, Backend API calls from the Clerk stand-in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createPublicKey } from "node:crypto";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { emulatorCalls } from "../tests/support/emulator-api";
import { emulatorCookie } from "../tests/support/session";
import type { Servers } from "./stack";

export const ROOT = resolve(import.meta.dirname ?? ".", "..");
const children: ChildProcess[] = [];

export function start(
  name: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
  node = process.execPath,
  /** Where its standard output (the JSON log lines) goes: a file's descriptor, or nowhere. */
  stdout: number | "ignore" = "ignore",
): ChildProcess {
  const child = spawn(node, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      CLERK_TELEMETRY_DISABLED: "1",
      ...env,
    },
    stdio: ["ignore", stdout, "pipe"],
  });
  let errors = "";
  child.stderr?.on("data", (d: Buffer) => (errors += d.toString()));
  child.once("exit", (code) => {
    if (code && code !== 0 && !stopping) console.error(`${name} exited with ${code}:\n${errors}`);
  });
  children.push(child);
  return child;
}

let stopping = false;
export function stopAll() {
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
}

/**
 * Up to two minutes: ten instances starting at once on a small machine that
 * other work shares (load averages of 20 seen) took more than 30 s.
 */
const START_TIMEOUT_MS = 120_000;

export async function waitFor(url: string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not come up`);
}

export const url = (port: number, path = "/") => `http://127.0.0.1:${port}${path}`;

/** What every browser sends: the load targets ask for compressed bodies too. */
export const BROWSER_HEADERS = { "Accept-Encoding": "gzip, br" };

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Backend API calls the stand-in at `clerk` has answered so far. */
export async function backendCalls(clerk: string): Promise<number> {
  return Object.entries(await emulatorCalls(clerk)).reduce(
    (sum, [endpoint, n]) => (endpoint.startsWith("bapi ") ? sum + n : sum),
    0,
  );
}

/** Ada, signed in, with Analytical Engines active: the benchmark's visitor. */
const adaCookie = (clerk: string) => emulatorCookie(clerk, "ada@example.com", "org_seed_engines");

/** A Clerk stand-in: the app in local mode, used only for its /__clerk APIs (and for the browser metrics). */
export async function startClerk(port: number, latencyMs = 0) {
  const dataDir = mkdtempSync(join(tmpdir(), "teamwork-bench-clerk-"));
  start("clerk", ["build/server.js"], {
    // On loopback only, as the instances are (COMMON_ENV).
    HOST: "127.0.0.1",
    PORT: String(port),
    CLERK_EMULATOR_DATA_DIR: dataDir,
    CLERK_EMULATOR_TOKEN_TTL: "3600",
    CLERK_EMULATOR_LATENCY_MS: String(latencyMs),
    LOG_LEVEL: "silent",
    RATE_LIMIT_SCALE: "1000",
    CLERK_EMULATOR_CONTROL: "1",
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(`${origin}/healthz`);
  return { origin, dataDir, keys: clerkKeys(dataDir, origin), cookie: await adaCookie(origin) };
}

/** What a Clerk app is configured with to use the stand-in at `origin` (as with a real Clerk instance's keys). */
export function clerkKeys(dataDir: string, origin: string) {
  return {
    CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`,
    CLERK_SECRET_KEY: `sk_live_emulator_${readFileSync(join(dataDir, "clerk-emulator-secret"), "utf8")}`,
    CLERK_API_URL: `${origin}/__clerk/api`,
    CLERK_JWT_KEY: createPublicKey(readFileSync(join(dataDir, "clerk-emulator-key.pem"), "utf8"))
      .export({ type: "spki", format: "pem" })
      .toString(),
  };
}

/**
 * `BENCH_SHEDDING=off`: the instances of the budget and memory phases without
 * load shedding (server/load-shedding.ts), to see what they did before it.
 */
export const SHEDDING_ENV: Record<string, string> =
  process.env.BENCH_SHEDDING === "off" ? { SHED_MAX_IN_FLIGHT: "0", SHED_EVENT_LOOP_DELAY_MS: "0" } : {};

export const COMMON_ENV = {
  HOST: "127.0.0.1",
  SESSION_SECRET: "bench-session-secret-0123456789abcdef",
  CLERK_JS: "/_clerk-js/clerk.browser.js",
  TRUST_PROXY: "loopback",
};

/**
 * The built app on `port`, on the Node running the bench unless `node` names another, with `nodeArgs`
 * (V8's profiler's flags, say) before the script.
 */
export function startApp(port: number, keys: Record<string, string>, node?: string, nodeArgs: string[] = []) {
  return start(
    "app",
    [...nodeArgs, "build/server.js"],
    { ...COMMON_ENV, ...keys, PORT: String(port), PUBLIC_ORIGIN: `http://127.0.0.1:${port}` },
    ROOT,
    node,
  );
}

/** How a fleet of its own (bench/stack.ts) starts its processes: with the bench's, stopped at the end too. */
export const stackServers: Servers = {
  startServer: (name, env, logFile) =>
    start(
      name,
      ["build/server.js"],
      { ...COMMON_ENV, ...env },
      ROOT,
      process.execPath,
      logFile ? openSync(logFile, "a") : "ignore",
    ),
  waitFor,
  clerkKeys,
};
