import { join } from "node:path";
import {
  createClerkEmulator,
  DEFAULT_SETTINGS,
  emulatorIssuer,
  emulatorPublishableKey,
  emulatorSecretKey,
  emulatorWebhookSecret,
  newWebhookSecret,
  persistentSecret,
  SettingsError,
  settingsFromEnv,
  TEST_EMAIL_CODE,
  type ClerkEmulator,
  type Settings,
  type WebhookSettings,
} from "clerk-emulator";

/** The password the demo users of local mode sign in with (README, "Demo users"). */
export const DEMO_PASSWORD = "teamwork-demo";

export { emulatorPublishableKey } from "clerk-emulator";

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
function webhookSettings(env: NodeJS.ProcessEnv, settings: Settings, port: string): WebhookSettings | undefined {
  if (env.CLERK_EMULATOR_WEBHOOKS === "off") return undefined;
  if (settings.webhookUrl) return { url: settings.webhookUrl, secret: settings.webhookSecret ?? newWebhookSecret() };
  // (An empty value, as an env file leaves it, is no secret.)
  const secret = env.CLERK_WEBHOOK_SIGNING_SECRET || emulatorWebhookSecret(settings.dataDir);
  env.CLERK_WEBHOOK_SIGNING_SECRET = secret;
  return { url: `http://127.0.0.1:${port}/webhooks/clerk`, secret };
}

/**
 * Local mode's emulator settings: the CLERK_EMULATOR_* variables, read and
 * checked as the emulator's CLI reads them, over this app's defaults (state
 * in ./.data, the app's name). A value they do not take throws SettingsError.
 */
export function localModeSettings(env: Readonly<Record<string, string | undefined>>): Settings {
  return settingsFromEnv(env, {
    ...DEFAULT_SETTINGS,
    dataDir: join(process.cwd(), ".data"),
    applicationName: "Teamwork",
    demoPassword: DEMO_PASSWORD,
  });
}

/** A bad CLERK_EMULATOR_* value stops the server with the settings' one line, as the emulator's CLI does. */
function settingsOrExit(env: NodeJS.ProcessEnv): Settings {
  try {
    return localModeSettings(env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

export function prepareLocalMode(env: NodeJS.ProcessEnv): {
  emulator: ClerkEmulator;
  banner: (origin: string) => string;
} {
  const settings = settingsOrExit(env);
  const { dataDir } = settings;
  const secretKey = emulatorSecretKey(dataDir, settings.development);
  const port = env.PORT ?? "3000";
  const emulator = createClerkEmulator({
    ...settings,
    mountPath: EMULATOR_MOUNT_PATH,
    secretKey,
    issuer: emulatorIssuer(settings.development),
    // Invitation links name the address people open the app at.
    frontendApiUrl: `${env.PUBLIC_ORIGIN ?? `http://localhost:${port}`}${EMULATOR_MOUNT_PATH}`,
    webhooks: webhookSettings(env, settings, port),
  });

  env.CLERK_LOCAL_EMULATOR = "1";
  env.HOST = "127.0.0.1";
  // CLERK_EMULATOR_DEVELOPMENT=1: a development instance (pk_test_/sk_test_ keys, dev browsers).
  env.CLERK_PUBLISHABLE_KEY = emulatorPublishableKey(settings.development);
  env.CLERK_SECRET_KEY = secretKey;
  env.CLERK_PROXY_URL = EMULATOR_MOUNT_PATH;
  env.CLERK_API_URL = `http://127.0.0.1:${port}${EMULATOR_MOUNT_PATH}/api`;
  env.CLERK_TELEMETRY_DISABLED = "1";
  env.SESSION_SECRET ||= persistentSecret(dataDir, "session-secret");

  const banner = (origin: string) =>
    [
      "",
      "  Teamwork is running in LOCAL MODE on the bundled Clerk emulator (no Clerk keys set).",
      `  Open ${origin} and sign in as ada@example.com or grace@example.com, password "${settings.demoPassword}".`,
      `  New sign-ups are verified with the email code ${TEST_EMAIL_CODE}.`,
      `  Emulator state: ${dataDir ? join(dataDir, "clerk-emulator.json") : "in memory"}. Listening on loopback only.`,
      "",
    ].join("\n");

  return { emulator, banner };
}
