import { join } from "node:path";
import { createClerkEmulator, DEMO_PASSWORD, TEST_EMAIL_CODE, type ClerkEmulator } from "../index";
import {
  EMULATOR_ISSUER,
  emulatorPublishableKey,
  emulatorSecretKey,
  emulatorWebhookSecret,
  persistentSecret,
} from "../domain/instance-keys";
import { parseRateLimitMode } from "../http/rate-limits";
import { parseSessionTokenVersion } from "../domain/tokens";
import { newWebhookSecret, type WebhookSettings } from "../webhooks/delivery";

export { emulatorPublishableKey } from "../domain/instance-keys";

export const EMULATOR_MOUNT_PATH = "/__clerk";

/**
 * Local mode: no Clerk keys were given, so the app runs against the bundled
 * emulator. Fills in the Clerk variables (and a session secret, if missing)
 * before the environment is validated; listens on loopback only.
 */
/**
 * Where the emulator sends Clerk's webhooks: by default to this app itself,
 * signed with a secret kept in the data folder, which the app is then given
 * (CLERK_WEBHOOK_SIGNING_SECRET), so the webhook path runs on every
 * developer's machine. CLERK_EMULATOR_WEBHOOK_URL (and _SECRET) send them
 * elsewhere (a stand-in for Clerk in front of other instances);
 * CLERK_EMULATOR_WEBHOOKS=off sends none.
 */
function webhookSettings(env: NodeJS.ProcessEnv, dataDir: string | null, port: string): WebhookSettings | undefined {
  if (env.CLERK_EMULATOR_WEBHOOKS === "off") return undefined;
  if (env.CLERK_EMULATOR_WEBHOOK_URL) {
    return { url: env.CLERK_EMULATOR_WEBHOOK_URL, secret: env.CLERK_EMULATOR_WEBHOOK_SECRET || newWebhookSecret() };
  }
  // (An empty value, as an env file leaves it, is no secret.)
  const secret = env.CLERK_WEBHOOK_SIGNING_SECRET || emulatorWebhookSecret(dataDir);
  env.CLERK_WEBHOOK_SIGNING_SECRET = secret;
  return { url: `http://127.0.0.1:${port}/webhooks/clerk`, secret };
}

/** A malformed CLERK_EMULATOR_RATE_LIMITS stops the server with one line, as the other variables do. */
function rateLimitsOf(env: NodeJS.ProcessEnv) {
  try {
    return parseRateLimitMode(env.CLERK_EMULATOR_RATE_LIMITS);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

/** A CLERK_EMULATOR_SESSION_TOKEN_VERSION other than 1 or 2 stops the server with one line. */
function sessionTokenVersionOf(env: NodeJS.ProcessEnv) {
  try {
    return parseSessionTokenVersion(env.CLERK_EMULATOR_SESSION_TOKEN_VERSION);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

export function prepareLocalMode(env: NodeJS.ProcessEnv): {
  emulator: ClerkEmulator;
  banner: (origin: string) => string;
} {
  const dataDir =
    env.CLERK_EMULATOR_DATA_DIR === "memory" ? null : (env.CLERK_EMULATOR_DATA_DIR ?? join(process.cwd(), ".data"));
  const secretKey = emulatorSecretKey(dataDir);
  const port = env.PORT ?? "3000";
  const ttl = Number(env.CLERK_EMULATOR_TOKEN_TTL ?? 60);
  const latency = Number(env.CLERK_EMULATOR_LATENCY_MS ?? 0);
  const emulator = createClerkEmulator({
    dataDir,
    mountPath: EMULATOR_MOUNT_PATH,
    secretKey,
    issuer: EMULATOR_ISSUER,
    tokenTtlSeconds: Number.isFinite(ttl) && ttl >= 5 ? ttl : 60,
    // Clerk's version 2 (the organization in `o`) unless 1 is asked for.
    sessionTokenVersion: sessionTokenVersionOf(env),
    organizationSlugs: env.CLERK_EMULATOR_ORG_SLUGS !== "off",
    // Addresses verified by emailed link at sign-up and in profiles (codes only unless asked for).
    emailLinkVerification: env.CLERK_EMULATOR_EMAIL_LINK_VERIFICATION === "on",
    // Passkeys in <SignIn/> and <UserProfile/> (off unless asked for: they add a section and a button).
    passkeys: env.CLERK_EMULATOR_PASSKEYS === "on",
    backendLatencyMs: Number.isFinite(latency) ? Math.min(Math.max(latency, 0), 10_000) : 0,
    // Invitation links name the address people open the app at.
    recordDir: env.CLERK_EMULATOR_RECORD_DIR || undefined,
    frontendApiUrl: `${env.PUBLIC_ORIGIN ?? `http://localhost:${port}`}${EMULATOR_MOUNT_PATH}`,
    webhooks: webhookSettings(env, dataDir, port),
    // Off unless asked for: the app's own tests and bench choose when Clerk's limits apply.
    rateLimits: rateLimitsOf(env),
    // Other apps' origins (a fixture behind its own proxy) the handshake may send browsers back to.
    allowedOrigins: (env.CLERK_EMULATOR_ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean),
  });

  env.CLERK_LOCAL_EMULATOR = "1";
  env.HOST = "127.0.0.1";
  env.CLERK_PUBLISHABLE_KEY = emulatorPublishableKey();
  env.CLERK_SECRET_KEY = secretKey;
  env.CLERK_PROXY_URL = EMULATOR_MOUNT_PATH;
  env.CLERK_API_URL = `http://127.0.0.1:${port}${EMULATOR_MOUNT_PATH}/api`;
  env.CLERK_TELEMETRY_DISABLED = "1";
  env.SESSION_SECRET ||= persistentSecret(dataDir, "session-secret");

  const banner = (origin: string) =>
    [
      "",
      "  Teamwork is running in LOCAL MODE on the bundled Clerk emulator (no Clerk keys set).",
      `  Open ${origin} and sign in as ada@example.com or grace@example.com, password "${DEMO_PASSWORD}".`,
      `  New sign-ups are verified with the email code ${TEST_EMAIL_CODE}.`,
      `  Emulator state: ${dataDir ? join(dataDir, "clerk-emulator.json") : "in memory"}. Listening on loopback only.`,
      "",
    ].join("\n");

  return { emulator, banner };
}
