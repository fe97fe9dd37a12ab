import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { normaliseOrigin } from "./http/proxy";
import { RATE_LIMIT_MODES, type RateLimitMode } from "./http/rate-limits";
import { DEFAULT_SESSION_TOKEN_VERSION, type SessionTokenVersion } from "./domain/tokens";
import { DEMO_PASSWORD } from "./state/seed";
import {
  defaultDashboardSettings,
  DashboardSettingsError,
  readDashboardSettings,
  type DashboardSettings,
} from "./domain/dashboard-settings";

/**
 * Everything the emulator can be told, once: the CLI reads it from flags and
 * the environment, the app's local mode from the environment, and each part
 * takes the slice it needs as a `Pick` of this type (the store's
 * `StoreSettings`, the minters' `TokenSettings`), never a copy of its fields.
 */
export type Settings = {
  /** Where the standalone emulator listens; 0 picks a free port. */
  port: number;
  /** Loopback unless told otherwise: the emulator trusts whoever reaches it. */
  host: string;
  /** Where state and keys are kept across restarts; null keeps them in memory. */
  dataDir: string | null;
  /** Where Clerk's webhooks go (an app's `/webhooks/clerk`), Svix-signed; null: none are sent. */
  webhookUrl: string | null;
  /** Overrides the webhook signing secret kept in the data folder. */
  webhookSecret: string | null;
  /** The app's public Frontend API proxy URL (`https://app.example.com/__clerk`): links name it, its origin is allowed. */
  proxyUrl: string | null;
  /** Origins the handshake may send browsers back to (Clerk's allowed origins). */
  allowedOrigins: string[];
  /** Mount the control API (`/_emulator/…`), for tests. */
  control: boolean;
  rateLimits: RateLimitMode;
  /** Milliseconds added before every Backend API answer: a Clerk far away. */
  backendLatencyMs: number;
  /** Milliseconds by which every Frontend API answer is held back: a browser far from Clerk. */
  frontendLatencyMs: number;
  /** Session token lifetime, seconds. */
  tokenTtlSeconds: number;
  /** Clerk's session token format: 2 (the organization in `o`), or 1 for an instance not yet on version 2. */
  sessionTokenVersion: SessionTokenVersion;
  /** The application's name, as Clerk's components show it. */
  applicationName: string;
  /** The password every seeded demo user signs in with (a fresh state's seed; a kept state keeps its own). */
  demoPassword: string;
  /** Clerk's "organization slugs" instance setting; off means organizations have none. */
  organizationSlugs: boolean;
  /** Clerk's "email verification link" setting for sign-up and profile addresses (codes only when off). */
  emailLinkVerification: boolean;
  /** Clerk's passkeys (WebAuthn) for signing in and in profiles. */
  passkeys: boolean;
  /** The dashboard's switches (multi-session, legal consent, sign-up mode, email links), in environment JSON keys. */
  instance: DashboardSettings;
  /** node_modules folders whose `@clerk/*` packages are served as Clerk's CDN serves them (`/npm/@clerk/…`). */
  npmDirs: string[];
  /** Tests only: write every answer down for the contract check against Clerk's OpenAPI spec. */
  recordDir: string | null;
  /** A development instance (`pk_test_`/`sk_test_` keys, dev browsers) instead of a production one. */
  development: boolean;
};

/** The one set of defaults: what a setting is when neither a flag, a variable nor the host gives it. */
export const DEFAULT_SETTINGS: Readonly<Settings> = {
  port: 4000,
  host: "127.0.0.1",
  dataDir: resolve(".data/clerk-emulator"),
  webhookUrl: null,
  webhookSecret: null,
  proxyUrl: null,
  allowedOrigins: [],
  control: false,
  rateLimits: "off",
  backendLatencyMs: 0,
  frontendLatencyMs: 0,
  tokenTtlSeconds: 60,
  sessionTokenVersion: DEFAULT_SESSION_TOKEN_VERSION,
  applicationName: "Clerk emulator",
  demoPassword: DEMO_PASSWORD,
  organizationSlugs: true,
  emailLinkVerification: false,
  passkeys: false,
  // Frozen: the emulator copies it before the control API changes a running instance's switches.
  instance: Object.freeze(defaultDashboardSettings()),
  npmDirs: [],
  recordDir: null,
  development: false,
};

/** A setting given a value it does not take: one line, naming the flag or variable and what it accepts. */
export class SettingsError extends Error {}

/** How one setting is named and read; `read` returns undefined for a value it does not take. */
type Setting = {
  [K in keyof Settings]: {
    key: K;
    flag: string;
    env: string;
    accepts: string;
    /** A list: the flag repeats, the variable is comma-separated. */
    list?: true;
    boolean?: true;
    read(raw: string): Settings[K] | undefined;
  };
}[keyof Settings];

const milliseconds = (raw: string) => (/^\d+$/.test(raw) && Number(raw) <= 10_000 ? Number(raw) : undefined);
const onOff = (raw: string) => (raw === "on" ? true : raw === "off" ? false : undefined);
const oneOrZero = (raw: string) =>
  raw === "1" || raw === "true" ? true : raw === "0" || raw === "false" ? false : undefined;
const httpUrl = (raw: string) => (normaliseOrigin(raw) ? raw : undefined);
const origins = (raw: string) => {
  const list = raw
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => normaliseOrigin(o));
  return list.every((o): o is string => o !== null) ? list : undefined;
};
const folders = (raw: string) =>
  raw
    .split(",")
    .filter(Boolean)
    .map((d) => resolve(d));

/** `--instance <file.json>`: the switches it sets, over Clerk's defaults (domain/dashboard-settings.ts). */
function readInstanceFile(raw: string): DashboardSettings | undefined {
  if (!raw) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(resolve(raw), "utf8"));
  } catch (error) {
    throw new DashboardSettingsError((error as Error).message.split("\n")[0]!);
  }
  return { ...defaultDashboardSettings(), ...readDashboardSettings(json) };
}

const SETTINGS: Setting[] = [
  {
    key: "port",
    flag: "port",
    env: "CLERK_EMULATOR_PORT",
    accepts: "a port, 0 to 65535",
    read: (raw) => (/^\d+$/.test(raw) && Number(raw) <= 65_535 ? Number(raw) : undefined),
  },
  { key: "host", flag: "host", env: "CLERK_EMULATOR_HOST", accepts: "an address", read: (raw) => raw || undefined },
  {
    key: "dataDir",
    flag: "data-dir",
    env: "CLERK_EMULATOR_DATA_DIR",
    accepts: 'a folder, or "memory"',
    read: (raw) => (raw === "memory" ? null : raw ? resolve(raw) : undefined),
  },
  {
    key: "webhookUrl",
    flag: "webhook-url",
    env: "CLERK_EMULATOR_WEBHOOK_URL",
    accepts: "an http(s) URL",
    read: httpUrl,
  },
  {
    key: "webhookSecret",
    flag: "webhook-secret",
    env: "CLERK_EMULATOR_WEBHOOK_SECRET",
    accepts: "a Svix secret, whsec_<base64>",
    read: (raw) => (/^whsec_[A-Za-z0-9+/=]+$/.test(raw) ? raw : undefined),
  },
  {
    key: "proxyUrl",
    flag: "proxy-url",
    env: "CLERK_EMULATOR_PROXY_URL",
    accepts: "an absolute http(s) URL",
    read: httpUrl,
  },
  {
    key: "allowedOrigins",
    flag: "allowed-origin",
    env: "CLERK_EMULATOR_ALLOWED_ORIGINS",
    accepts: "http(s) origins",
    list: true,
    read: origins,
  },
  {
    key: "control",
    flag: "control",
    env: "CLERK_EMULATOR_CONTROL",
    accepts: "1 or 0",
    boolean: true,
    read: oneOrZero,
  },
  {
    key: "rateLimits",
    flag: "rate-limits",
    env: "CLERK_EMULATOR_RATE_LIMITS",
    accepts: `one of ${RATE_LIMIT_MODES.join(", ")}`,
    read: (raw) => RATE_LIMIT_MODES.find((mode) => mode === raw),
  },
  {
    key: "backendLatencyMs",
    flag: "latency-ms",
    env: "CLERK_EMULATOR_LATENCY_MS",
    accepts: "milliseconds, 0 to 10000",
    read: milliseconds,
  },
  {
    key: "frontendLatencyMs",
    flag: "frontend-latency-ms",
    env: "CLERK_EMULATOR_FRONTEND_LATENCY_MS",
    accepts: "milliseconds, 0 to 10000",
    read: milliseconds,
  },
  {
    key: "tokenTtlSeconds",
    flag: "token-ttl",
    env: "CLERK_EMULATOR_TOKEN_TTL",
    accepts: "a number of seconds, 5 or more",
    read: (raw) => (/^\d+(\.\d+)?$/.test(raw) && Number(raw) >= 5 ? Number(raw) : undefined),
  },
  {
    key: "sessionTokenVersion",
    flag: "session-token-version",
    env: "CLERK_EMULATOR_SESSION_TOKEN_VERSION",
    accepts: "1 or 2, Clerk's session token versions",
    read: (raw) => (raw === "1" ? 1 : raw === "2" ? 2 : undefined),
  },
  {
    key: "applicationName",
    flag: "app-name",
    env: "CLERK_EMULATOR_APP_NAME",
    accepts: "a name",
    read: (raw) => raw || undefined,
  },
  {
    key: "demoPassword",
    flag: "demo-password",
    env: "CLERK_EMULATOR_DEMO_PASSWORD",
    accepts: "8 to 72 characters",
    read: (raw) => (raw.length >= 8 && raw.length <= 72 ? raw : undefined),
  },
  { key: "organizationSlugs", flag: "org-slugs", env: "CLERK_EMULATOR_ORG_SLUGS", accepts: "on or off", read: onOff },
  {
    key: "emailLinkVerification",
    flag: "email-link-verification",
    env: "CLERK_EMULATOR_EMAIL_LINK_VERIFICATION",
    accepts: "on or off",
    read: onOff,
  },
  { key: "passkeys", flag: "passkeys", env: "CLERK_EMULATOR_PASSKEYS", accepts: "on or off", read: onOff },
  {
    key: "instance",
    flag: "instance",
    env: "CLERK_EMULATOR_INSTANCE",
    accepts: "a JSON file of Clerk's environment keys",
    read: readInstanceFile,
  },
  {
    key: "npmDirs",
    flag: "npm-dir",
    env: "CLERK_EMULATOR_NPM_DIRS",
    accepts: "node_modules folders",
    list: true,
    read: folders,
  },
  {
    key: "recordDir",
    flag: "record-dir",
    env: "CLERK_EMULATOR_RECORD_DIR",
    accepts: "a folder",
    read: (raw) => (raw ? resolve(raw) : undefined),
  },
  {
    key: "development",
    flag: "development",
    env: "CLERK_EMULATOR_DEVELOPMENT",
    accepts: "1 or 0",
    boolean: true,
    read: oneOrZero,
  },
];

function readOne(setting: Setting, name: string, raw: string): unknown {
  let value;
  try {
    value = setting.read(raw.trim());
  } catch (error) {
    // A file's own refusal names the key in it: the line names the flag and the file too.
    if (error instanceof DashboardSettingsError) throw new SettingsError(`${name} ${raw}: ${error.message}`);
    throw error;
  }
  if (value === undefined) throw new SettingsError(`${name}: ${setting.accepts} (got "${raw}")`);
  return value;
}

/**
 * The settings the environment gives (`CLERK_EMULATOR_*`), over `defaults`.
 * An empty variable, as an env file leaves it, is not given.
 */
export function settingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  defaults: Settings = DEFAULT_SETTINGS,
): Settings {
  const settings: Record<string, unknown> = { ...defaults };
  for (const setting of SETTINGS) {
    const raw = env[setting.env];
    if (raw === undefined || raw.trim() === "") continue;
    settings[setting.key] = readOne(setting, setting.env, raw);
  }
  return settings as Settings;
}

/** The settings the command line's flags give (`--token-ttl 30`), over `base`; "help" for --help. */
export function settingsFromArgs(argv: string[], base: Settings = DEFAULT_SETTINGS): Settings | "help" {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(
          SETTINGS.map((s) => [s.flag, { type: s.boolean ? "boolean" : "string", multiple: s.list ?? false }] as const),
        ),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  if (values.help) return "help";
  const settings: Record<string, unknown> = { ...base };
  for (const setting of SETTINGS) {
    const given = values[setting.flag];
    if (given === undefined) continue;
    const name = `--${setting.flag}`;
    if (typeof given === "boolean") settings[setting.key] = given;
    else if (Array.isArray(given))
      settings[setting.key] = given.flatMap((raw) => readOne(setting, name, String(raw)) as unknown[]);
    else settings[setting.key] = readOne(setting, name, given);
  }
  return settings as Settings;
}
