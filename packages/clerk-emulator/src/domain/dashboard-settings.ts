/**
 * The instance's switches as Clerk's dashboard sets them, named by where Clerk's environment JSON
 * (`GET /v1/environment`) shows them: `auth_config.single_session_mode`,
 * `user_settings.sign_up.mode`… One table (`SWITCHES`) says each switch's path and what it accepts,
 * `defaultDashboardSettings` its default; the settings file (`--instance`), the control API's
 * `PATCH /_emulator/instance` and its answer go through them, so a switch is added in one place (and
 * read where its rule is: the environment JSON, domain/sessions.ts, domain/sign-ups.ts…).
 */

import {
  readSocialConnections,
  SOCIAL_ACCEPTS,
  socialConnectionsJSON,
  type SocialConnections,
} from "./social-connections";

export const SIGN_UP_MODES = ["public", "restricted", "waitlist"] as const;
export type SignUpMode = (typeof SIGN_UP_MODES)[number];

export type DashboardSettings = {
  /** `auth_config.single_session_mode`: one signed-in account per browser (Clerk's default), or several. */
  singleSessionMode: boolean;
  /** `user_settings.sign_up.legal_consent_enabled`: a sign-up must accept the legal terms (`legal_accepted`). */
  legalConsentEnabled: boolean;
  /** `user_settings.sign_up.mode`: anyone signs up, only invited people, or people let in from the waitlist. */
  signUpMode: SignUpMode;
  /** `user_settings.attributes.email_address.first_factors` lists `email_link`: people sign in by an emailed link. */
  emailLinkSignIn: boolean;
  /** `user_settings.attributes.email_address.verifications` lists `email_link`: addresses are verified by link too. */
  emailLinkVerification: boolean;
  /**
   * `user_settings.attributes.email_address.verify_at_sign_up` (the dashboard's "Verify at sign-up"): a
   * sign-up waits for its address to be verified (Clerk's default). Off, an address and a password make
   * the user at once, the address unverified; it signs in as any address does, and the first emailed
   * code entered on it verifies it (domain/sign-ups.ts, domain/identifiers.ts).
   */
  emailVerifyAtSignUp: boolean;
  /** `user_settings.social`: the social connections (`oauth_google`…) offered to sign in and sign up with. */
  socialConnections: SocialConnections;
  /**
   * `organization_settings.force_organization_selection` (the dashboard's "Allow personal accounts" off):
   * a session without an active organization is pending, with the `choose-organization` task.
   */
  forceOrganizationSelection: boolean;
  /** `user_settings.sign_up.mfa.required`: a session of someone without a second factor is pending, with the `setup-mfa` task. */
  mfaRequired: boolean;
  /**
   * `auth_config.client_trust` (the dashboard's Client Trust, "Device Trust" in Clerk's docs): a password
   * sign-in on a browser where the person has never had a session waits at `needs_client_trust` for a code
   * (domain/client-trust.ts). **Not in Clerk's environment JSON**, which does not show this switch: the
   * settings file takes it here, beside the auth settings, and the environment never shows it.
   */
  clientTrust: boolean;
  /**
   * `auth_config.reverification`: the person's sensitive changes of their own account (adding an email
   * address or a phone number, a new password, deleting the account) wait for a fresh factor
   * (domain/session-verifications.ts, `reverificationNeeded`), and <UserProfile/> asks for no current
   * password (the reverification stands for it).
   */
  reverification: boolean;
};

type Switch = {
  [K in keyof DashboardSettings]: {
    key: K;
    /** Where Clerk's environment JSON has it, dot-separated. */
    path: string;
    accepts: string;
    read(value: unknown): DashboardSettings[K] | undefined;
    /** How the environment JSON writes it, when not as is. */
    json?(value: DashboardSettings[K]): unknown;
  };
}[keyof DashboardSettings];

const boolean = (value: unknown) => (typeof value === "boolean" ? value : undefined);

/**
 * An email strategy list (`["email_code", "email_link"]`): whether it lists `email_link`. Email codes
 * are always there (the emulator cannot do without them), so a list must name `email_code`.
 */
const emailStrategies = {
  accepts: '["email_code"] or ["email_code", "email_link"]',
  read: (value: unknown) => {
    if (!Array.isArray(value) || !value.includes("email_code") || new Set(value).size !== value.length) return;
    if (!value.every((v) => v === "email_code" || v === "email_link")) return;
    return value.includes("email_link");
  },
  json: (links: boolean) => (links ? ["email_code", "email_link"] : ["email_code"]),
};

const SWITCHES: Switch[] = [
  { key: "singleSessionMode", path: "auth_config.single_session_mode", accepts: "true or false", read: boolean },
  {
    key: "signUpMode",
    path: "user_settings.sign_up.mode",
    accepts: `one of ${SIGN_UP_MODES.join(", ")}`,
    read: (value) => SIGN_UP_MODES.find((mode) => mode === value),
  },
  {
    key: "legalConsentEnabled",
    path: "user_settings.sign_up.legal_consent_enabled",
    accepts: "true or false",
    read: boolean,
  },
  { key: "emailLinkSignIn", path: "user_settings.attributes.email_address.first_factors", ...emailStrategies },
  { key: "emailLinkVerification", path: "user_settings.attributes.email_address.verifications", ...emailStrategies },
  {
    key: "emailVerifyAtSignUp",
    path: "user_settings.attributes.email_address.verify_at_sign_up",
    accepts: "true or false",
    read: boolean,
  },
  {
    key: "socialConnections",
    path: "user_settings.social",
    accepts: SOCIAL_ACCEPTS,
    read: readSocialConnections,
    json: (connections) => socialConnectionsJSON(connections, true),
  },
  {
    key: "forceOrganizationSelection",
    path: "organization_settings.force_organization_selection",
    accepts: "true or false",
    read: boolean,
  },
  { key: "mfaRequired", path: "user_settings.sign_up.mfa.required", accepts: "true or false", read: boolean },
  { key: "clientTrust", path: "auth_config.client_trust", accepts: "true or false", read: boolean },
  { key: "reverification", path: "auth_config.reverification", accepts: "true or false", read: boolean },
];

/** Clerk's defaults for a new production instance (email links: the emulator's, as before these switches). */
export function defaultDashboardSettings(): DashboardSettings {
  return {
    singleSessionMode: true,
    legalConsentEnabled: false,
    signUpMode: "public",
    // The emulator's own defaults: sign-in links on, address verification by code only.
    emailLinkSignIn: true,
    emailLinkVerification: false,
    emailVerifyAtSignUp: true,
    // None unless the file lists them (a new application in Clerk's dashboard often starts with Google on).
    socialConnections: {},
    // Personal accounts allowed: no session task.
    forceOrganizationSelection: false,
    mfaRequired: false,
    // Off, as on a new instance: a password is enough on any browser.
    clientTrust: false,
    // Off, as the emulator was: no sensitive action waits for a reverification.
    reverification: false,
  };
}

/** A switch given a key or a value it does not take: one line naming the key and what it accepts. */
export class DashboardSettingsError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/**
 * The switches a JSON object in the environment's shape sets (`{"auth_config": {"single_session_mode":
 * false}}`), and only those: an unknown key or a value a switch does not take is refused whole, naming
 * the key, so nothing is half applied.
 */
export function readDashboardSettings(json: unknown): Partial<DashboardSettings> {
  if (!isObject(json)) throw new DashboardSettingsError(`expected a JSON object (got ${shown(json)})`);
  const found: Record<string, unknown> = {};
  const visit = (object: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(object)) {
      const path = prefix ? `${prefix}.${name}` : name;
      const setting = SWITCHES.find((s) => s.path === path);
      if (setting) {
        const read = setting.read(value);
        if (read === undefined) throw new DashboardSettingsError(`${path}: ${setting.accepts} (got ${shown(value)})`);
        found[setting.key] = read;
      } else if (SWITCHES.some((s) => s.path.startsWith(`${path}.`))) {
        if (!isObject(value)) throw new DashboardSettingsError(`${path}: an object (got ${shown(value)})`);
        visit(value, path);
      } else {
        throw new DashboardSettingsError(unknownKey(path, name));
      }
    }
  };
  visit(json, "");
  return found as Partial<DashboardSettings>;
}

/** An unknown key's line: the switches there are, and the one it most likely meant (same name, another place). */
function unknownKey(path: string, name: string): string {
  const meant = SWITCHES.find((s) => s.path.endsWith(`.${name}`));
  const hint = meant ? `; Clerk's environment has ${name} at ${meant.path}` : "";
  return `${path}: unknown key${hint} (known: ${SWITCHES.map((s) => s.path).join(", ")})`;
}

/** The switches in the environment's shape, as the settings file and the control API write them. */
export function dashboardSettingsJSON(settings: DashboardSettings): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const setting of SWITCHES) {
    const parts = setting.path.split(".");
    let at = json;
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
    const value = settings[setting.key];
    at[parts.at(-1)!] = setting.json ? (setting.json as (v: typeof value) => unknown)(value) : value;
  }
  return json;
}

/**
 * Tests change the switches while the emulator runs (the control API's `PATCH /_emulator/instance`):
 * the ones given, over the current ones, for this process; the rest keep theirs.
 */
export function changeDashboardSettings(current: DashboardSettings, json: unknown): DashboardSettings {
  return Object.assign(current, readDashboardSettings(json));
}
