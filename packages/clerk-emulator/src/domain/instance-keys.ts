import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// `.invalid` never resolves, so nothing can leak to a real host by mistake:
// browsers reach the emulator through the app's proxy (`proxyUrl`), never here.
export const EMULATOR_FRONTEND_HOST = "clerk.emulator.invalid";

/** `iss` of the emulator's session tokens: the Frontend API the publishable key names. */
export const EMULATOR_ISSUER = `https://${EMULATOR_FRONTEND_HOST}`;

/**
 * A development instance's Frontend API. clerk-js sets up a dev browser only for a Frontend API
 * whose host ends in one of Clerk's development suffixes (`isDevOrStagingUrl`: `accounts.dev`…),
 * and @clerk/shared takes a host under `.accounts.dev` but not `.clerk.accounts.dev` for an Account
 * Portal: so `<name>.clerk.accounts.dev`, as Clerk names its development instances. No host under
 * `.invalid` can end so. Clerk owns `accounts.dev`: behind the app's proxy no browser ever asks
 * that host for anything; without one, clerk-js would reach Clerk, never a stranger.
 */
export const EMULATOR_DEVELOPMENT_FRONTEND_HOST = "clerk-emulator.clerk.accounts.dev";

/** The Frontend API host the instance's publishable key names. */
export const emulatorFrontendHost = (development = false) =>
  development ? EMULATOR_DEVELOPMENT_FRONTEND_HOST : EMULATOR_FRONTEND_HOST;

/** `iss` of the session tokens of a production (`EMULATOR_ISSUER`) or development instance. */
export const emulatorIssuer = (development = false) => `https://${emulatorFrontendHost(development)}`;

/**
 * Clerk's publishable key, `pk_<live|test>_<base64 of "host$">`. A production key (`pk_live_…`):
 * clerk-js uses the `__client` cookie. A development key (`pk_test_…`): clerk-js creates a dev
 * browser and sends it with every Frontend API call (`__clerk_db_jwt`).
 */
export function emulatorPublishableKey(development = false): string {
  const prefix = development ? "pk_test_" : "pk_live_";
  return `${prefix}${Buffer.from(`${emulatorFrontendHost(development)}$`).toString("base64")}`;
}

/** A random secret kept in the data folder (so keys survive a restart), or a fresh one when state is in memory. */
export function persistentSecret(dataDir: string | null, name: string): string {
  if (!dataDir) return randomBytes(32).toString("hex");
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("hex");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** The instance's secret key (`CLERK_SECRET_KEY`): `sk_test_…` for a development instance, the same secret after it. */
export const emulatorSecretKey = (dataDir: string | null, development = false) =>
  `${development ? "sk_test_" : "sk_live_"}emulator_${persistentSecret(dataDir, "clerk-emulator-secret")}`;

/** The webhook endpoint's signing secret, as Clerk's dashboard shows it (`whsec_<base64>`). */
export const emulatorWebhookSecret = (dataDir: string | null) =>
  `whsec_${Buffer.from(persistentSecret(dataDir, "clerk-webhook-secret"), "hex").toString("base64")}`;
