import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  EMULATOR_ISSUER,
  emulatorIssuer,
  emulatorPublishableKey,
  emulatorSecretKey,
} from "../../src/domain/instance-keys";
import { DEFAULT_SETTINGS, settingsFromArgs, settingsFromEnv } from "../../src/settings";

// Issue 68, item 2: the instance's keys say whether it is a production or a development one.

/** The Frontend API host a publishable key names, as Clerk's SDKs decode it (`parsePublishableKey`). */
const frontendApiOf = (key: string) => {
  const decoded = Buffer.from(key.replace(/^pk_(live|test)_/, ""), "base64").toString();
  expect(decoded.endsWith("$")).toBe(true);
  return decoded.slice(0, -1);
};

/** clerk-js's `isDevOrStagingUrl` suffixes (@clerk/shared's DEV_OR_STAGING_SUFFIXES on release/core-2 and main). */
const DEV_OR_STAGING_SUFFIXES = [
  ".lcl.dev",
  ".stg.dev",
  ".lclstage.dev",
  ".stgstage.dev",
  ".dev.lclclerk.com",
  ".stg.lclclerk.com",
  ".accounts.lclclerk.com",
  "accountsstage.dev",
  "accounts.dev",
];
const isDevOrStagingHost = (host: string) => DEV_OR_STAGING_SUFFIXES.some((suffix) => host.endsWith(suffix));

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("the instance's keys", () => {
  it("production (the default): pk_live_ naming clerk.emulator.invalid, sk_live_, as before", () => {
    expect(emulatorPublishableKey()).toBe(`pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`);
    expect(frontendApiOf(emulatorPublishableKey(false))).toBe("clerk.emulator.invalid");
    expect(emulatorIssuer()).toBe(EMULATOR_ISSUER);
    expect(emulatorSecretKey(null)).toMatch(/^sk_live_emulator_[0-9a-f]{64}$/);
  });

  it("development: pk_test_ naming a host clerk-js takes for a development Frontend API, sk_test_", () => {
    const key = emulatorPublishableKey(true);
    expect(key).toMatch(/^pk_test_[A-Za-z0-9+/]+=*$/);
    const host = frontendApiOf(key);
    expect(host).toBe("clerk-emulator.clerk.accounts.dev");
    // clerk-js sets up its dev browser only for such a host; the production one is not one.
    expect(isDevOrStagingHost(host)).toBe(true);
    expect(isDevOrStagingHost(frontendApiOf(emulatorPublishableKey()))).toBe(false);
    // A Frontend API, not an Account Portal (@clerk/shared's `isCurrentDevAccountPortalOrigin`).
    expect(host.endsWith(".clerk.accounts.dev")).toBe(true);
    expect(emulatorIssuer(true)).toBe(`https://${host}`);
    expect(emulatorSecretKey(null, true)).toMatch(/^sk_test_emulator_[0-9a-f]{64}$/);
  });

  it("keeps the same secret in the data folder for both kinds of key", () => {
    const dir = mkdtempSync(join(tmpdir(), "clerk-keys-"));
    dirs.push(dir);
    const live = emulatorSecretKey(dir);
    expect(emulatorSecretKey(dir)).toBe(live);
    expect(emulatorSecretKey(dir, true)).toBe(live.replace(/^sk_live_/, "sk_test_"));
  });
});

describe("the development setting", () => {
  it("is off by default, on with --development or CLERK_EMULATOR_DEVELOPMENT=1, and a flag wins", () => {
    expect(DEFAULT_SETTINGS.development).toBe(false);
    expect(settingsFromEnv({}).development).toBe(false);
    expect(settingsFromEnv({ CLERK_EMULATOR_DEVELOPMENT: "1" }).development).toBe(true);
    expect(settingsFromEnv({ CLERK_EMULATOR_DEVELOPMENT: "0" }).development).toBe(false);
    expect(settingsFromEnv({ CLERK_EMULATOR_DEVELOPMENT: "" }).development).toBe(false);
    expect(settingsFromArgs(["--development"])).toMatchObject({ development: true });
    expect(settingsFromArgs([], settingsFromEnv({ CLERK_EMULATOR_DEVELOPMENT: "1" }))).toMatchObject({
      development: true,
    });
  });

  it("refuses a value it does not take, naming the variable", () => {
    expect(() => settingsFromEnv({ CLERK_EMULATOR_DEVELOPMENT: "yes" })).toThrow(/CLERK_EMULATOR_DEVELOPMENT: 1 or 0/);
    expect(() => settingsFromArgs(["--development=yes"])).toThrow();
  });
});
