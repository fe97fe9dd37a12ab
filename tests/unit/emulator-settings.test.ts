import { describe, expect, it } from "vitest";
import { parseCli } from "clerk-emulator/cli";
import { SettingsError } from "clerk-emulator";
import { localModeSettings, prepareLocalMode } from "../../server/local-mode";

// Issue 55: one settings type, read and checked the same way by the emulator's
// CLI (flags and environment) and by the app's local mode. A value a setting
// does not take stops each with one line naming the flag or variable and what
// it takes; local mode no longer quietly replaces it with a default.

/** The one line a setting's refusal says, or null when the value is taken. */
function refusal(read: () => unknown): string | null {
  try {
    read();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
}

const BAD: [flag: string, variable: string, value: string, accepts: RegExp][] = [
  ["--token-ttl", "CLERK_EMULATOR_TOKEN_TTL", "1", /a number of seconds, 5 or more/],
  ["--token-ttl", "CLERK_EMULATOR_TOKEN_TTL", "soon", /a number of seconds, 5 or more/],
  ["--latency-ms", "CLERK_EMULATOR_LATENCY_MS", "20000", /milliseconds, 0 to 10000/],
  ["--frontend-latency-ms", "CLERK_EMULATOR_FRONTEND_LATENCY_MS", "1.5", /milliseconds, 0 to 10000/],
  ["--session-token-version", "CLERK_EMULATOR_SESSION_TOKEN_VERSION", "3", /1 or 2/],
  ["--rate-limits", "CLERK_EMULATOR_RATE_LIMITS", "fast", /production, development, off/],
  ["--allowed-origin", "CLERK_EMULATOR_ALLOWED_ORIGINS", "localhost:3000", /http\(s\) origins/],
  ["--passkeys", "CLERK_EMULATOR_PASSKEYS", "yes", /on or off/],
];

describe("the emulator's settings", () => {
  it.each(BAD)(
    "%s / %s refuses %j the same way from the CLI's flags, its environment and local mode",
    (flag, variable, value, accepts) => {
      const fromArgs = refusal(() => parseCli([flag, value], {}));
      const fromEnv = refusal(() => parseCli([], { [variable]: value }));
      const fromLocalMode = refusal(() => localModeSettings({ [variable]: value }));
      for (const [line, name] of [
        [fromArgs, flag],
        [fromEnv, variable],
        [fromLocalMode, variable],
      ] as const) {
        expect(line).toMatch(accepts);
        expect(line).toMatch(new RegExp(`^${name}: .*\\(got "${value}"\\)$`));
        expect(line).not.toContain("\n");
      }
      // The flag's line and the variable's say the same but for the name.
      expect(fromEnv!.replace(variable, flag)).toBe(fromArgs);
      expect(fromLocalMode).toBe(fromEnv);
    },
  );

  it("reads the same good values from the CLI's environment and local mode", () => {
    const env = {
      CLERK_EMULATOR_TOKEN_TTL: "30",
      CLERK_EMULATOR_LATENCY_MS: "40",
      CLERK_EMULATOR_SESSION_TOKEN_VERSION: "1",
      CLERK_EMULATOR_ORG_SLUGS: "off",
      CLERK_EMULATOR_PASSKEYS: "on",
    };
    const same = {
      tokenTtlSeconds: 30,
      backendLatencyMs: 40,
      sessionTokenVersion: 1,
      organizationSlugs: false,
      passkeys: true,
    };
    expect(parseCli([], env)).toMatchObject(same);
    expect(localModeSettings(env)).toMatchObject(same);
    expect(parseCli(["--token-ttl", "90"], env)).toMatchObject({ tokenTtlSeconds: 90 });
  });

  it("makes local mode a development instance with CLERK_EMULATOR_DEVELOPMENT=1, and a production one without", () => {
    for (const [development, pk, sk] of [
      ["1", /^pk_test_/, /^sk_test_emulator_/],
      ["", /^pk_live_/, /^sk_live_emulator_/],
    ] as const) {
      const env: NodeJS.ProcessEnv = {
        NODE_ENV: "test",
        CLERK_EMULATOR_DEVELOPMENT: development,
        CLERK_EMULATOR_DATA_DIR: "memory",
        CLERK_EMULATOR_WEBHOOKS: "off",
      };
      const { emulator } = prepareLocalMode(env);
      try {
        expect(env.CLERK_PUBLISHABLE_KEY).toMatch(pk);
        expect(env.CLERK_SECRET_KEY).toMatch(sk);
        expect(localModeSettings(env).development).toBe(development === "1");
      } finally {
        emulator.close();
      }
    }
  });
});
