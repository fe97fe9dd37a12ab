import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HELP, parseCli, UsageError } from "../../src/hosts/cli";

// `npm run emulator`'s options: each flag has an environment variable, and a flag wins.
describe("npm run emulator's options", () => {
  it("has defaults another app can start with", () => {
    expect(parseCli([], {})).toMatchObject({
      port: 4000,
      host: "127.0.0.1",
      dataDir: resolve(".data/clerk-emulator"),
      webhookUrl: null,
      proxyUrl: null,
      allowedOrigins: [],
      control: false,
      rateLimits: "off",
      tokenTtlSeconds: 60,
      sessionTokenVersion: 2,
      development: false,
    });
    expect(parseCli(["--development"], {})).toMatchObject({ development: true });
  });

  it("takes each setting from the environment, and a flag over it", () => {
    const env = {
      CLERK_EMULATOR_PORT: "4100",
      CLERK_EMULATOR_DATA_DIR: "memory",
      CLERK_EMULATOR_WEBHOOK_URL: "http://localhost:3000/webhooks/clerk",
      CLERK_EMULATOR_ALLOWED_ORIGINS: "http://localhost:3000, https://app.example.test/",
      CLERK_EMULATOR_RATE_LIMITS: "production",
      CLERK_EMULATOR_CONTROL: "1",
      CLERK_EMULATOR_SESSION_TOKEN_VERSION: "1",
      CLERK_EMULATOR_DEVELOPMENT: "1",
    };
    expect(parseCli([], env)).toMatchObject({
      port: 4100,
      dataDir: null,
      webhookUrl: "http://localhost:3000/webhooks/clerk",
      allowedOrigins: ["http://localhost:3000", "https://app.example.test"],
      rateLimits: "production",
      control: true,
      sessionTokenVersion: 1,
      development: true,
    });
    expect(parseCli(["--session-token-version", "2"], env)).toMatchObject({ sessionTokenVersion: 2 });
    expect(
      parseCli(["--port", "0", "--allowed-origin", "http://a.test:1", "--allowed-origin", "http://b.test:2"], env),
    ).toMatchObject({ port: 0, allowedOrigins: ["http://a.test:1", "http://b.test:2"] });
  });

  it("refuses what it cannot use, naming the option", () => {
    expect(() => parseCli(["--port", "http"], {})).toThrow(UsageError);
    expect(() => parseCli(["--rate-limits", "fast"], {})).toThrow(/production, development, off/);
    expect(() => parseCli(["--allowed-origin", "localhost:3000"], {})).toThrow(/--allowed-origin/);
    expect(() => parseCli(["--webhook-secret", "hunter2"], {})).toThrow(/whsec_/);
    expect(() => parseCli(["--token-ttl", "1"], {})).toThrow(/--token-ttl/);
    expect(() => parseCli(["--session-token-version", "3"], {})).toThrow(/--session-token-version: 1 or 2/);
    expect(() => parseCli([], { CLERK_EMULATOR_SESSION_TOKEN_VERSION: "v2" })).toThrow(/1 or 2.*"v2"/);
    expect(() => parseCli(["--bogus"], {})).toThrow(UsageError);
  });

  it("documents every option in --help", () => {
    expect(parseCli(["--help"], {})).toBe("help");
    for (const flag of [
      "--port",
      "--data-dir",
      "--webhook-url",
      "--proxy-url",
      "--allowed-origin",
      "--rate-limits",
      "--session-token-version",
      "--development",
    ]) {
      expect(HELP).toContain(flag);
    }
  });
});
