import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEMO_PASSWORD, TEST_EMAIL_CODE } from "../index";
import { normaliseOrigin } from "../http/proxy";
import { parseRateLimitMode } from "../http/rate-limits";
import { startStandaloneEmulator, type StandaloneOptions } from "./standalone";
import { parseSessionTokenVersion } from "../domain/tokens";

/**
 * `npm run emulator`: the Clerk emulator on its own port, for any Clerk app.
 * Each flag has an environment variable; a flag wins.
 */
export const HELP = `Usage: npm run emulator -- [options]

A local stand-in for Clerk (Frontend API, Backend API, Svix-signed webhooks)
for any app on Clerk's SDKs. It prints the .env lines your app needs.

Options (environment variable in brackets):
  --port <n>             port to listen on; 0 picks a free one      [CLERK_EMULATOR_PORT, PORT] (4000)
  --host <address>       address to listen on; requests must name it, a loopback name or
                         the --proxy-url's host in their Host header [CLERK_EMULATOR_HOST] (127.0.0.1)
  --data-dir <dir>       where state and keys are kept; "memory" keeps nothing
                                                                     [CLERK_EMULATOR_DATA_DIR] (.data/clerk-emulator)
  --webhook-url <url>    POST Clerk's webhooks there, Svix-signed     [CLERK_EMULATOR_WEBHOOK_URL]
  --webhook-secret <s>   sign them with this whsec_… secret          [CLERK_EMULATOR_WEBHOOK_SECRET] (kept in data dir)
  --proxy-url <url>      the app's public Frontend API proxy URL, e.g. http://localhost:3000/__clerk:
                         invitation links name it, its origin may be redirected to
                                                                     [CLERK_EMULATOR_PROXY_URL]
  --allowed-origin <o>   an origin the handshake may redirect to; repeat for more
                                                                     [CLERK_EMULATOR_ALLOWED_ORIGINS, comma-separated]
  --rate-limits <mode>   Clerk's documented limits: production, development or off
                                                                     [CLERK_EMULATOR_RATE_LIMITS] (off)
  --npm-dir <dir>        a node_modules folder whose @clerk/clerk-js and @clerk/ui are served at
                         /npm/@clerk/<name>@<version>/dist/… as Clerk's CDN would; repeat for more
                                                                     [CLERK_EMULATOR_NPM_DIRS, comma-separated] (./node_modules)
  --token-ttl <s>        session token lifetime in seconds (>= 5)    [CLERK_EMULATOR_TOKEN_TTL] (60)
  --session-token-version <v>
                         Clerk's session token format: 2 (the organization in "o", Clerk's since
                         API version 2025-04-10) or 1 (org_id, org_role...)
                                                                     [CLERK_EMULATOR_SESSION_TOKEN_VERSION] (2)
  --latency-ms <n>       milliseconds added before every Backend API answer, as a Clerk far away
                         (0 to 10000)                                [CLERK_EMULATOR_LATENCY_MS] (0)
  --frontend-latency-ms <n>
                         milliseconds added before every Frontend API answer, as for a browser
                         far from Clerk (0 to 10000)        [CLERK_EMULATOR_FRONTEND_LATENCY_MS] (0)
  --control              mount the control API at /_emulator (tests) [CLERK_EMULATOR_CONTROL=1]
  --help                 this text

Browsers reach the Frontend API through your app's origin: proxy <app>/__clerk/* to
<emulator>/* (the /__clerk prefix removed) and give Clerk proxyUrl "/__clerk".
See docs/emulator.md.`;

export class UsageError extends Error {}

export function parseCli(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
): StandaloneOptions | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        "webhook-url": { type: "string" },
        "webhook-secret": { type: "string" },
        "proxy-url": { type: "string" },
        "allowed-origin": { type: "string", multiple: true },
        "rate-limits": { type: "string" },
        "token-ttl": { type: "string" },
        "session-token-version": { type: "string" },
        "latency-ms": { type: "string" },
        "frontend-latency-ms": { type: "string" },
        "npm-dir": { type: "string", multiple: true },
        control: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";

  const port = Number(values.port ?? env.CLERK_EMULATOR_PORT ?? env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port: not a port: ${values.port}`);
  const ttl = Number(values["token-ttl"] ?? env.CLERK_EMULATOR_TOKEN_TTL ?? 60);
  if (!Number.isFinite(ttl) || ttl < 5) throw new UsageError("--token-ttl: a number of seconds, 5 or more");

  const latency = values["latency-ms"] ?? env.CLERK_EMULATOR_LATENCY_MS ?? "0";
  const latencyMs = Number(latency);
  if (!/^\d+$/.test(latency.trim()) || latencyMs > 10_000)
    throw new UsageError(`--latency-ms: milliseconds, 0 to 10000 (got "${latency}")`);
  const frontendLatency = values["frontend-latency-ms"] ?? env.CLERK_EMULATOR_FRONTEND_LATENCY_MS ?? "0";
  const frontendLatencyMs = Number(frontendLatency);
  if (!/^\d+$/.test(frontendLatency.trim()) || frontendLatencyMs > 10_000)
    throw new UsageError(`--frontend-latency-ms: milliseconds, 0 to 10000 (got "${frontendLatency}")`);

  const dataDir = values["data-dir"] ?? env.CLERK_EMULATOR_DATA_DIR ?? ".data/clerk-emulator";
  const webhookUrl = values["webhook-url"] ?? env.CLERK_EMULATOR_WEBHOOK_URL ?? null;
  if (webhookUrl && !normaliseOrigin(webhookUrl))
    throw new UsageError(`--webhook-url: not an http(s) URL: ${webhookUrl}`);
  const webhookSecret = values["webhook-secret"] ?? env.CLERK_EMULATOR_WEBHOOK_SECRET ?? null;
  if (webhookSecret && !/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret))
    throw new UsageError("--webhook-secret: a Svix secret, whsec_<base64>");
  const proxyUrl = values["proxy-url"] ?? env.CLERK_EMULATOR_PROXY_URL ?? null;
  if (proxyUrl && !normaliseOrigin(proxyUrl))
    throw new UsageError(`--proxy-url: not an absolute http(s) URL: ${proxyUrl}`);

  const origins = values["allowed-origin"] ?? (env.CLERK_EMULATOR_ALLOWED_ORIGINS ?? "").split(",");
  const allowedOrigins = origins
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      const origin = normaliseOrigin(o);
      if (!origin) throw new UsageError(`--allowed-origin: not an http(s) origin: ${o}`);
      return origin;
    });

  let sessionTokenVersion;
  try {
    sessionTokenVersion = parseSessionTokenVersion(
      values["session-token-version"] ?? env.CLERK_EMULATOR_SESSION_TOKEN_VERSION,
    );
  } catch {
    const given = values["session-token-version"] ?? env.CLERK_EMULATOR_SESSION_TOKEN_VERSION;
    throw new UsageError(`--session-token-version: 1 or 2, Clerk's session token versions (got "${given}")`);
  }

  let rateLimits;
  try {
    rateLimits = parseRateLimitMode(values["rate-limits"] ?? env.CLERK_EMULATOR_RATE_LIMITS);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }

  return {
    port,
    host: values.host ?? env.CLERK_EMULATOR_HOST ?? "127.0.0.1",
    dataDir: dataDir === "memory" ? null : resolve(dataDir),
    webhookUrl,
    webhookSecret,
    proxyUrl,
    allowedOrigins,
    control: values.control ?? env.CLERK_EMULATOR_CONTROL === "1",
    rateLimits,
    latencyMs,
    frontendLatencyMs,
    tokenTtlSeconds: ttl,
    sessionTokenVersion,
    applicationName: env.CLERK_EMULATOR_APP_NAME ?? "Clerk emulator",
    recordDir: env.CLERK_EMULATOR_RECORD_DIR || undefined,
    npmDirs: [
      ...(values["npm-dir"] ?? (env.CLERK_EMULATOR_NPM_DIRS ?? "").split(",")).filter(Boolean).map((d) => resolve(d)),
      resolve("node_modules"),
    ],
  };
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let options;
  try {
    options = parseCli(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${HELP}`);
    process.exit(2);
  }
  if (options === "help") {
    console.log(HELP);
    return;
  }

  const running = await startStandaloneEmulator(options).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" && error.code !== "EACCES") throw error;
    console.error(`Cannot listen on ${options.host}:${options.port}: ${error.code}. Choose another with --port.`);
    process.exit(1);
  });

  console.log(
    [
      `Clerk emulator listening on ${running.url}`,
      `  Frontend API ${running.url}/v1   Backend API ${running.url}/api/v1` +
        (options.control ? `   control API ${running.url}/_emulator` : ""),
      `  State: ${options.dataDir ?? "in memory"}. Webhooks: ${options.webhookUrl ?? "none (--webhook-url)"}. Rate limits: ${options.rateLimits}. Session tokens: version ${options.sessionTokenVersion}.` +
        (options.latencyMs > 0 ? ` Backend API latency: ${options.latencyMs} ms.` : "") +
        (options.frontendLatencyMs > 0 ? ` Frontend API latency: ${options.frontendLatencyMs} ms.` : ""),
      `  Sign in as ada@example.com or grace@example.com, password "${DEMO_PASSWORD}"; email codes are ${TEST_EMAIL_CODE}.`,
      "",
      "# Your app's .env:",
      ...Object.entries(running.env).map(([name, value]) => `${name}=${value}`),
      "",
      `# Proxy <app origin>${options.proxyUrl ? new URL(options.proxyUrl).pathname.replace(/\/+$/, "") : "/__clerk"}/* to ${running.url}/*, the prefix removed (docs/emulator.md).`,
      "",
    ].join("\n"),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the Clerk emulator.`);
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
