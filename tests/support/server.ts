import { spawn, type ChildProcess } from "node:child_process";
import { createPublicKey } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "clerk-emulator/testing";
import { NETWORK_GUARD_MARK, NETWORK_GUARD_PATH } from "./guard";

export const ROOT = resolve(import.meta.dirname, "../..");

// The emulator package's, as the process-group helper is: one for both suites.
export { freePort };

// Every server this process started and has not yet stopped. A test stops its
// own (in `finally` or `afterAll`); should one fail before it can, none
// outlives the test process.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export type RunningServer = {
  origin: string;
  port: number;
  dataDir: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  child: ChildProcess;
};

/** Env for a server talking to Clerk's real (here: unreachable) APIs, verifying sessions with a PEM key. */
export function keysModeEnv(publicKeyPem: string): Record<string, string> {
  return {
    CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("clerk.teamwork.invalid$").toString("base64")}`,
    CLERK_SECRET_KEY: "sk_live_integration_tests_only",
    CLERK_JWT_KEY: publicKeyPem,
    CLERK_API_URL: "http://127.0.0.1:9/unreachable",
    SESSION_SECRET: "integration-tests-session-secret-0123456789",
    TRUST_PROXY: "loopback",
    // PUBLIC_ORIGIN: startServer fills in the server's own origin.
  };
}

/**
 * Starts the built production server (`node build/server.js`) on a free
 * loopback port with the network guard preloaded, and waits for /healthz.
 * With no Clerk keys in `env` it runs in local mode on the emulator, with a
 * fresh data folder (so a known, seeded state).
 */
export async function startServer(env: Record<string, string | undefined> = {}): Promise<RunningServer> {
  // A port found free can be taken by another test process before the server binds it: then another port.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startServerOnce(env);
    } catch (error) {
      if (attempt === 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

async function startServerOnce(env: Record<string, string | undefined>): Promise<RunningServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // With keys, the server needs to know its public origin; here that is its own.
  const publicOrigin = env.CLERK_SECRET_KEY && !("PUBLIC_ORIGIN" in env) ? { PUBLIC_ORIGIN: origin } : {};
  const dataDir = mkdtempSync(join(tmpdir(), "teamwork-test-"));
  let output = "";
  const child = spawn(process.execPath, ["build/server.js"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      PORT: String(port),
      CLERK_EMULATOR_DATA_DIR: dataDir,
      CLERK_TELEMETRY_DISABLED: "1",
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      // Tests post the same forms many times from one address; the limits themselves are tested at scale 1.
      RATE_LIMIT_SCALE: "1000",
      // The emulator's control API (faults, sessions, state) is for tests only.
      CLERK_EMULATOR_CONTROL: "1",
      // A test machine's scheduler, not the app, makes a test server's timers late (a loaded CI
      // box starves it for whole seconds): shedding by event-loop delay would refuse the tests' own
      // requests. load-shedding.test.ts turns it on; shedding by requests in flight stays on.
      SHED_EVENT_LOOP_DELAY_MS: "0",
      // Where the emulator records its answers for the contract check (clerk-emulator/contract).
      CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR,
      ...publicOrigin,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((done) =>
    child.once("exit", (code) => {
      running.delete(child);
      done(code);
    }),
  );

  // Generous: on a loaded machine (a CI host running other work) a start has taken more than 20 s.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not become healthy:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    origin,
    port,
    dataDir,
    child,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      if (output.includes(NETWORK_GUARD_MARK)) {
        throw new Error(`the server tried to reach beyond loopback:\n${output}`);
      }
      // What a newer Node warns of is fixed, not left for the next upgrade (docs/deployment.md, "Node").
      if (output.includes("DeprecationWarning")) throw new Error(`the server used a deprecated API:\n${output}`);
      return code;
    },
  };
}

/** A same-origin form POST, as a browser sends it (redirects left for the test to read). */
export function postForm(server: RunningServer, path: string, fields: Record<string, string>, cookie: string) {
  return fetch(server.origin + path, {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

/** Runs the server (of the app in `root`) expecting it to refuse to start; resolves with its exit code and output. */
export async function runServerExpectingExit(env: Record<string, string | undefined>, root = ROOT) {
  const port = await freePort();
  return new Promise<{ code: number | null; output: string }>((done) => {
    let output = "";
    const child = spawn(process.execPath, ["build/server.js"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        PORT: String(port),
        NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

/** The publishable key of a Clerk instance whose Frontend API is `clerk.emulator.invalid` (what the emulator's tokens name). */
export const EMULATED_CLERK_PUBLISHABLE_KEY = `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`;

/**
 * Keys mode against `clerk`, a local-mode server standing in for Clerk (its
 * Backend API, JWKS and handshake payloads, its calls counted): the app's
 * environment, and the PEM public key for CLERK_JWT_KEY when a test wants it.
 */
export function keysModeOn(clerk: RunningServer, sessionSecret: string) {
  const jwtKey = createPublicKey(readFileSync(join(clerk.dataDir, "clerk-emulator-key.pem"), "utf8"))
    .export({ type: "spki", format: "pem" })
    .toString();
  const env = {
    CLERK_PUBLISHABLE_KEY: EMULATED_CLERK_PUBLISHABLE_KEY,
    CLERK_SECRET_KEY: `sk_live_emulator_${readFileSync(join(clerk.dataDir, "clerk-emulator-secret"), "utf8").trim()}`,
    CLERK_API_URL: `${clerk.origin}/__clerk/api`,
    SESSION_SECRET: sessionSecret,
    TRUST_PROXY: "loopback",
  };
  return { env, jwtKey };
}
