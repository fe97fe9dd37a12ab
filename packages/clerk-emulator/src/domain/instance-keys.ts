import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// `.invalid` never resolves, so nothing can leak to a real host by mistake:
// browsers reach the emulator through the app's proxy (`proxyUrl`), never here.
export const EMULATOR_FRONTEND_HOST = "clerk.emulator.invalid";

/** `iss` of the emulator's session tokens: the Frontend API the publishable key names. */
export const EMULATOR_ISSUER = `https://${EMULATOR_FRONTEND_HOST}`;

/** A production-shaped key (`pk_live_…`): clerk-js then uses the `__client` cookie, not development browsers. */
export function emulatorPublishableKey(): string {
  return `pk_live_${Buffer.from(`${EMULATOR_FRONTEND_HOST}$`).toString("base64")}`;
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

/** The instance's secret key (`CLERK_SECRET_KEY`). */
export const emulatorSecretKey = (dataDir: string | null) =>
  `sk_live_emulator_${persistentSecret(dataDir, "clerk-emulator-secret")}`;

/** The webhook endpoint's signing secret, as Clerk's dashboard shows it (`whsec_<base64>`). */
export const emulatorWebhookSecret = (dataDir: string | null) =>
  `whsec_${Buffer.from(persistentSecret(dataDir, "clerk-webhook-secret"), "hex").toString("base64")}`;
