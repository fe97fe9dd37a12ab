import { resolve } from "node:path";
import { dashboardSettingsJSON } from "../domain/dashboard-settings";
import { TEST_EMAIL_CODE } from "../index";
import { SettingsError, settingsFromArgs, settingsFromEnv, type Settings } from "../settings";
import { startStandaloneEmulator } from "./standalone";

/**
 * `npm run emulator`: the Clerk emulator on its own port, for any Clerk app.
 * Each flag has an environment variable; a flag wins.
 */
export const HELP = `Usage: clerk-emulator [options]   (npm run emulator -- [options] in its repository)

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
  --app-name <name>      the application's name in Clerk's components [CLERK_EMULATOR_APP_NAME] (Clerk emulator)
  --demo-password <password>
                         the seeded demo users' password, for a fresh state (8 to 72 characters)
                                                            [CLERK_EMULATOR_DEMO_PASSWORD] (clerk-emulator-demo)
  --org-slugs <on|off>   Clerk's "organization slugs" setting        [CLERK_EMULATOR_ORG_SLUGS] (on)
  --email-link-verification <on|off>
                         addresses verified by emailed link as well as code
                                                                     [CLERK_EMULATOR_EMAIL_LINK_VERIFICATION] (off)
  --passkeys <on|off>    Clerk's passkeys in sign-in and profiles    [CLERK_EMULATOR_PASSKEYS] (off)
  --development          a development instance: pk_test_/sk_test_ keys, and clerk-js's dev browser
                         (__clerk_db_jwt) instead of the __client cookie [CLERK_EMULATOR_DEVELOPMENT=1]
  --instance <file.json> the dashboard's switches (multi-session, legal consent, sign-up mode, email links),
                         in the keys of Clerk's GET /v1/environment, e.g.
                         {"auth_config": {"single_session_mode": false},
                          "user_settings": {"sign_up": {"mode": "restricted", "legal_consent_enabled": true}}}
                                                                     [CLERK_EMULATOR_INSTANCE] (Clerk's defaults)
  --record-dir <dir>     tests: write every answer down there, for the contract check
                                                                     [CLERK_EMULATOR_RECORD_DIR]
  --control              mount the control API at /_emulator (tests) [CLERK_EMULATOR_CONTROL=1]
  --help                 this text

Browsers reach the Frontend API through your app's origin: proxy <app>/__clerk/* to
<emulator>/* (the /__clerk prefix removed) and give Clerk proxyUrl "/__clerk".
See the emulator's GUIDE.md (beside this package's package.json).`;

/** A flag or variable given a value it does not take (the settings' one line). */
export { SettingsError as UsageError } from "../settings";

/** The CLI's settings: the environment's over the defaults (PORT too, as hosts set it), the flags' over those. */
export function parseCli(argv: string[], env: Readonly<Record<string, string | undefined>>): Settings | "help" {
  const fromEnv = settingsFromEnv({ CLERK_EMULATOR_PORT: env.PORT, ...env });
  const settings = settingsFromArgs(argv, fromEnv);
  if (settings === "help") return settings;
  // This folder's own node_modules last: clerk-js and @clerk/ui are served from it unless a folder given first has them.
  return { ...settings, npmDirs: [...settings.npmDirs, resolve("node_modules")] };
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let options;
  try {
    options = parseCli(argv, env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
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
        (options.backendLatencyMs > 0 ? ` Backend API latency: ${options.backendLatencyMs} ms.` : "") +
        (options.frontendLatencyMs > 0 ? ` Frontend API latency: ${options.frontendLatencyMs} ms.` : ""),
      ...(options.development
        ? [
            "  A development instance: clerk-js keeps its client in a dev browser (__clerk_db_jwt), not the __client cookie.",
          ]
        : []),
      `  Instance (--instance): ${JSON.stringify(dashboardSettingsJSON(options.instance))}.`,
      `  Sign in as ada@example.com or grace@example.com, password "${options.demoPassword}"; email codes are ${TEST_EMAIL_CODE}.`,
      "",
      "# Your app's .env:",
      ...Object.entries(running.env).map(([name, value]) => `${name}=${value}`),
      "",
      `# Proxy <app origin>${options.proxyUrl ? new URL(options.proxyUrl).pathname.replace(/\/+$/, "") : "/__clerk"}/* to ${running.url}/*, the prefix removed (the emulator's GUIDE.md).`,
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
