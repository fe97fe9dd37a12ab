import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dashboardSettingsJSON } from "../../src/domain/dashboard-settings";
import { parseCli, UsageError } from "../../src/hosts/cli";

// `--instance <file.json>` (CLERK_EMULATOR_INSTANCE): the dashboard's switches, in the keys Clerk's
// environment JSON (`GET /v1/environment`) gives them.
const folder = mkdtempSync(join(tmpdir(), "clerk-emulator-instance-"));
let files = 0;
function instanceFile(content: unknown): string {
  const file = join(folder, `instance-${++files}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

const defaults = {
  singleSessionMode: true,
  legalConsentEnabled: false,
  signUpMode: "public",
  emailLinkSignIn: true,
  emailLinkVerification: false,
  socialConnections: {},
  clientTrust: false,
};

describe("the instance settings file", () => {
  it("is Clerk's defaults when not given", () => {
    expect(parseCli([], {})).toMatchObject({ instance: defaults });
  });

  it("sets the switches it names, in the environment JSON's keys, and leaves the rest at Clerk's defaults", () => {
    const file = instanceFile({
      auth_config: { single_session_mode: false },
      user_settings: { sign_up: { legal_consent_enabled: true } },
    });
    expect(parseCli(["--instance", file], {})).toMatchObject({
      instance: { singleSessionMode: false, legalConsentEnabled: true, signUpMode: "public" },
    });
    const waitlist = instanceFile({ user_settings: { sign_up: { mode: "waitlist" } } });
    expect(parseCli([], { CLERK_EMULATOR_INSTANCE: waitlist })).toMatchObject({
      instance: { ...defaults, signUpMode: "waitlist" },
    });
    // A flag wins over the variable, whole file for whole file.
    expect(parseCli(["--instance", file], { CLERK_EMULATOR_INSTANCE: waitlist })).toMatchObject({
      instance: { singleSessionMode: false, signUpMode: "public" },
    });
    expect(parseCli(["--instance", instanceFile({})], {})).toMatchObject({ instance: defaults });
  });

  it("takes email links as the environment lists them: first factors and verifications", () => {
    const links = instanceFile({
      user_settings: {
        attributes: { email_address: { first_factors: ["email_code"], verifications: ["email_link", "email_code"] } },
      },
    });
    expect(parseCli(["--instance", links], {})).toMatchObject({
      instance: { emailLinkSignIn: false, emailLinkVerification: true },
    });
    // Email codes cannot be turned off: a list without them is refused.
    const codeless = instanceFile({
      user_settings: { attributes: { email_address: { first_factors: ["email_link"] } } },
    });
    expect(() => parseCli(["--instance", codeless], {})).toThrow(
      `--instance ${codeless}: user_settings.attributes.email_address.first_factors: ["email_code"] or ["email_code", "email_link"] (got ["email_link"])`,
    );
    const other = instanceFile({ user_settings: { attributes: { phone_number: { first_factors: ["phone_code"] } } } });
    expect(() => parseCli(["--instance", other], {})).toThrow(/user_settings\.attributes\.phone_number: unknown key/);
  });

  it("takes social connections as the environment has them under user_settings.social, Clerk's names filled in", () => {
    const social = instanceFile({
      user_settings: {
        social: {
          oauth_google: { enabled: true },
          oauth_github: { enabled: true, authenticatable: false, strategy: "oauth_github" },
          oauth_discord: { enabled: false, name: "Our Discord", logo_url: null },
        },
      },
    });
    const parsed = parseCli(["--instance", social], {});
    if (parsed === "help") throw new Error("parseCli answered help");
    const { instance } = parsed;
    expect(instance.socialConnections).toEqual({
      oauth_google: expect.objectContaining({
        enabled: true,
        authenticatable: true,
        name: "Google",
        logoUrl: "https://img.clerk.com/static/google.png",
      }),
      oauth_github: expect.objectContaining({ enabled: true, authenticatable: false, name: "GitHub" }),
      oauth_discord: expect.objectContaining({ enabled: false, name: "Our Discord", logoUrl: null }),
    });
    // The environment's JSON is what the file gives back (the control API's answer, the start line).
    expect(dashboardSettingsJSON(instance)).toMatchObject({
      user_settings: {
        social: {
          oauth_google: {
            enabled: true,
            required: false,
            authenticatable: true,
            block_email_subaddresses: false,
            strategy: "oauth_google",
            not_selectable: false,
            deprecated: false,
            name: "Google",
            logo_url: "https://img.clerk.com/static/google.png",
          },
        },
      },
    });
    // A provider the emulator does not know, a connection without `enabled`, a strategy not its key: refused whole.
    for (const wrong of [
      { oauth_myspace: { enabled: true } },
      { oauth_google: { authenticatable: true } },
      { oauth_google: { enabled: true, strategy: "oauth_github" } },
      { oauth_google: { enabled: "yes" } },
      { oauth_google: { enabled: true, scopes: ["email"] } },
    ]) {
      const file = instanceFile({ user_settings: { social: wrong } });
      expect(() => parseCli(["--instance", file], {})).toThrow(
        new RegExp(`^--instance ${file}: user_settings\\.social: an object of providers by strategy \\(oauth_apple, `),
      );
    }
  });

  it("takes client trust beside the auth settings (auth_config.client_trust), a key Clerk's environment lacks", () => {
    const file = instanceFile({ auth_config: { client_trust: true } });
    const parsed = parseCli(["--instance", file], {});
    if (parsed === "help") throw new Error("parsed as --help");
    expect(parsed.instance).toMatchObject({ ...defaults, clientTrust: true });
    expect(dashboardSettingsJSON(parsed.instance)).toMatchObject({ auth_config: { client_trust: true } });
    expect(() => parseCli(["--instance", instanceFile({ auth_config: { client_trust: "on" } })], {})).toThrow(
      /auth_config\.client_trust: true or false \(got "on"\)/,
    );
  });

  it("refuses an unknown key in one line naming the key and the keys there are", () => {
    const file = instanceFile({ auth_config: { single_session_mode: false, multi_session: true } });
    expect(() => parseCli(["--instance", file], {})).toThrow(UsageError);
    expect(() => parseCli(["--instance", file], {})).toThrow(
      new RegExp(
        `^--instance ${file}: auth_config\\.multi_session: unknown key \\(known: auth_config\\.single_session_mode, user_settings\\.sign_up\\.mode, `,
      ),
    );
    expect(() => parseCli(["--instance", instanceFile({ display_config: {} })], {})).toThrow(
      /display_config: unknown key/,
    );
    // Clerk's environment has the legal consent switch under sign_up: the line says where.
    const misplaced = instanceFile({ user_settings: { legal_consent_enabled: true } });
    expect(() => parseCli(["--instance", misplaced], {})).toThrow(
      /user_settings\.legal_consent_enabled: unknown key; Clerk's environment has legal_consent_enabled at user_settings\.sign_up\.legal_consent_enabled/,
    );
  });

  it("refuses a value a switch does not take, naming the key, what it accepts and what it got", () => {
    const mode = instanceFile({ user_settings: { sign_up: { mode: "closed" } } });
    expect(() => parseCli(["--instance", mode], {})).toThrow(
      `--instance ${mode}: user_settings.sign_up.mode: one of public, restricted, waitlist (got "closed")`,
    );
    const flag = instanceFile({ auth_config: { single_session_mode: "false" } });
    expect(() => parseCli([], { CLERK_EMULATOR_INSTANCE: flag })).toThrow(
      `CLERK_EMULATOR_INSTANCE ${flag}: auth_config.single_session_mode: true or false (got "false")`,
    );
    const notAnObject = instanceFile({ auth_config: true });
    expect(() => parseCli(["--instance", notAnObject], {})).toThrow(/auth_config: an object \(got true\)/);
    expect(() => parseCli(["--instance", instanceFile("[1]")], {})).toThrow(/expected a JSON object/);
  });

  it("refuses a file it cannot read or parse, in one line", () => {
    const broken = instanceFile('{"auth_config": ');
    expect(() => parseCli(["--instance", broken], {})).toThrow(new RegExp(`^--instance ${broken}: .*JSON`));
    expect(() => parseCli(["--instance", join(folder, "missing.json")], {})).toThrow(/ENOENT/);
    for (const error of [broken, join(folder, "missing.json")].map((f) => {
      try {
        parseCli(["--instance", f], {});
      } catch (e) {
        return (e as Error).message;
      }
    })) {
      expect(error).not.toContain("\n");
    }
  });
});
