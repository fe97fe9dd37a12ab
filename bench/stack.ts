/**
 * A fleet on loopback as production runs one: a stand-in for Clerk (the app
 * in local mode, used for its /__clerk APIs, with Clerk's production rate
 * limits), one redis-server, and instances of the built app in keys mode
 * sharing it; Clerk's webhooks sent to the first instance, or none. Clerk's
 * budget (bench/budget.ts) and fair share (bench/fair-share.ts) both measure on it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backendApi } from "../tests/support/emulator-api";
import { newWebhookSecret } from "../tests/support/webhooks";

export type Servers = {
  /** Starts `node build/server.js` (the bench's own helper, which stops it at the end). */
  startServer(name: string, env: Record<string, string>, logFile?: string): ChildProcess;
  waitFor(url: string): Promise<void>;
  /** The environment an instance needs to use the stand-in for Clerk at `origin` (keys, API URL). */
  clerkKeys(dataDir: string, origin: string): Record<string, string>;
};

export type StackOptions = {
  instances: number;
  webhooks: boolean;
  /** Clerk on it, Redis on the next, the instances after. */
  basePort: number;
  /** What every instance gets besides its keys, port, origin and Redis. */
  instanceEnv: Record<string, string>;
};

export type Stack = {
  clerk: string;
  dataDir: string;
  instances: string[];
  redisUrl: string;
  bapi: ReturnType<typeof backendApi>;
  /** Stops every process the stack started (Clerk, Redis, the instances). */
  stop(): void;
};

/** The stacks running now, so that an interrupted bench (Ctrl-C, SIGTERM) stops them too. */
const running = new Set<() => void>();

/** Stops every stack still running (their `finally` blocks do not run when the bench is interrupted). */
export function stopStacks() {
  for (const stop of running) stop();
}

export async function startStack(
  servers: Servers,
  { instances: size, webhooks, basePort, instanceEnv }: StackOptions,
): Promise<Stack> {
  const ports = {
    clerk: basePort,
    redis: basePort + 1,
    instances: Array.from({ length: size }, (_, i) => basePort + 2 + i),
  };
  const secret = newWebhookSecret();
  const children = [
    spawn("redis-server", ["--port", String(ports.redis), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    }),
  ];
  const stop = () => {
    running.delete(stop);
    for (const child of children) child.kill("SIGKILL");
  };
  running.add(stop);
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "teamwork-bench-stack-"));
    const clerk = `http://127.0.0.1:${ports.clerk}`;
    children.push(
      servers.startServer("clerk", {
        PORT: String(ports.clerk),
        CLERK_EMULATOR_DATA_DIR: dataDir,
        CLERK_EMULATOR_TOKEN_TTL: "3600",
        CLERK_EMULATOR_CONTROL: "1",
        // Clerk's production limits (1,000 Backend API calls per 10 s…), counted as refusals (429).
        CLERK_EMULATOR_RATE_LIMITS: "production",
        RATE_LIMIT_SCALE: "1000",
        LOG_LEVEL: "silent",
        ...(webhooks
          ? {
              // Clerk sends each webhook to the deployment's address; here, to the first instance (it tells the others through Redis).
              CLERK_EMULATOR_WEBHOOK_URL: `http://127.0.0.1:${ports.instances[0]}/webhooks/clerk`,
              CLERK_EMULATOR_WEBHOOK_SECRET: secret,
            }
          : { CLERK_EMULATOR_WEBHOOKS: "off" }),
      }),
    );
    await servers.waitFor(`${clerk}/healthz`);
    const instances = ports.instances.map((port) => `http://127.0.0.1:${port}`);
    const redisUrl = `redis://127.0.0.1:${ports.redis}`;
    for (const port of ports.instances) {
      children.push(
        servers.startServer(
          "instance",
          {
            ...servers.clerkKeys(dataDir, clerk),
            ...instanceEnv,
            PORT: String(port),
            PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
            REDIS_URL: redisUrl,
            ...(webhooks ? { CLERK_WEBHOOK_SIGNING_SECRET: secret } : {}),
          },
          // Its log lines, kept to explain a 500 should a run count one.
          join(dataDir, `instance-${port}.log`),
        ),
      );
    }
    await Promise.all(instances.map((origin) => servers.waitFor(`${origin}/healthz`)));
    return { clerk, dataDir, instances, redisUrl, bapi: backendApi(clerk, dataDir), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** The instances' unexpected errors (what a 500 logs), the first three, for a run that counted a 500. */
export function printUnexpectedErrors(dataDir: string) {
  const lines = readdirSync(dataDir)
    .filter((file) => file.startsWith("instance-") && file.endsWith(".log"))
    .flatMap((file) => readFileSync(join(dataDir, file), "utf8").split("\n"))
    .filter((line) => line.includes('"event":"unexpected_error"'));
  console.log(`The instances logged ${lines.length} unexpected error(s); the first:`);
  for (const line of lines.slice(0, 3)) console.log(line.slice(0, 2_000));
}

/** Answers that were not 200, by status ("503" with Retry-After, "503 without Retry-After", "no answer"…). */
export type Statuses = Record<string, number>;

export const countStatus = (statuses: Statuses, status: number | string) =>
  void (statuses[status] = (statuses[status] ?? 0) + 1);

export const notOk = (statuses: Statuses) => Object.values(statuses).reduce((sum, n) => sum + n, 0);

export const describeStatuses = (statuses: Statuses) =>
  Object.entries(statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(", ") || "none";

/** Backend API calls Clerk's production rate limits refused (429) so far. */
export const refusedCalls = async (clerk: string) =>
  ((await (await fetch(`${clerk}/__clerk/_emulator/rate-limited`)).json()) as { bapi: number }).bapi;
