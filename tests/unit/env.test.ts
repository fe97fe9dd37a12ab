import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "~/lib/env.server";
import { sheddingLimits } from "../../server/load-shedding";

const pk = `pk_live_${Buffer.from("clerk.example.com$").toString("base64")}`;
const valid = {
  NODE_ENV: "production",
  CLERK_PUBLISHABLE_KEY: pk,
  CLERK_SECRET_KEY: "sk_live_abc",
  SESSION_SECRET: "x".repeat(32),
  PUBLIC_ORIGIN: "https://teamwork.example.com",
  TRUST_PROXY: "1",
};

function messageFor(env: Record<string, string>): string {
  try {
    parseEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error("expected parseEnv to throw");
}

const rsaPem = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .publicKey.export({ type: "spki", format: "pem" })
  .toString();
const ecPem = generateKeyPairSync("ec", { namedCurve: "P-256" })
  .publicKey.export({ type: "spki", format: "pem" })
  .toString();

describe("parseEnv", () => {
  it.each([
    ["on several lines", rsaPem],
    ["with \\n escapes", rsaPem.replace(/\n/g, "\\n")],
    ["with CRLF line ends", rsaPem.replace(/\n/g, "\r\n")],
    ["on one line, as npm run emulator prints it", rsaPem.replace(/\n/g, "")],
    ["as bare base64", rsaPem.replace(/-----[A-Z ]+-----|\n/g, "")],
  ])("takes CLERK_JWT_KEY %s, as Clerk's SDK does, and gives Node's crypto a PEM it reads", (_form, value) => {
    const key = parseEnv({ ...valid, CLERK_JWT_KEY: value }).CLERK_JWT_KEY;
    expect(key).toBe(rsaPem);
    expect(createPublicKey(key!).asymmetricKeyType).toBe("rsa");
  });

  it("accepts a complete environment and fills defaults", () => {
    const env = parseEnv(valid);
    expect(env.PORT).toBe(3000);
    expect(env.HOST).toBe("0.0.0.0");
    expect(env.PUBLIC_ORIGIN).toBe("https://teamwork.example.com");
    expect(env.TRUST_PROXY).toBe(1);
  });

  it("reads TRUST_PROXY as a hop count or a list for Express, and PUBLIC_ORIGIN as a bare origin", () => {
    expect(parseEnv({ ...valid, TRUST_PROXY: "loopback, 10.0.0.0/8, fd00::/8" }).TRUST_PROXY).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::/8",
    ]);
    expect(parseEnv({ ...valid, PUBLIC_ORIGIN: "https://Teamwork.Example.com:8443/" }).PUBLIC_ORIGIN).toBe(
      "https://teamwork.example.com:8443",
    );
  });

  it("reads CLERK_AUTHORIZED_PARTIES as a list of bare origins, and names it when one is not", () => {
    expect(parseEnv(valid).CLERK_AUTHORIZED_PARTIES).toBeUndefined();
    expect(
      parseEnv({ ...valid, CLERK_AUTHORIZED_PARTIES: "https://app.example.org, https://Team.example.net/" })
        .CLERK_AUTHORIZED_PARTIES,
    ).toEqual(["https://app.example.org", "https://team.example.net"]);
    expect(messageFor({ ...valid, CLERK_AUTHORIZED_PARTIES: "https://app.example.org,https://x.example/path" })).toBe(
      "Invalid environment: CLERK_AUTHORIZED_PARTIES must be an origin such as https://teamwork.example.com (no path)",
    );
  });

  it("needs neither in local mode (the emulator fills the Clerk keys)", () => {
    const { PUBLIC_ORIGIN: _o, TRUST_PROXY: _t, ...rest } = valid;
    expect(parseEnv({ ...rest, CLERK_LOCAL_EMULATOR: "1" }).PUBLIC_ORIGIN).toBeUndefined();
  });

  it("names a missing variable in one line", () => {
    const { SESSION_SECRET: _omit, ...rest } = valid;
    expect(messageFor(rest)).toBe("Invalid environment: SESSION_SECRET is required but not set");
  });

  it("serves metrics only on a port of their own, on loopback unless told otherwise", () => {
    expect(parseEnv(valid).METRICS_PORT).toBeUndefined();
    const env = parseEnv({ ...valid, METRICS_PORT: "9464" });
    expect([env.METRICS_PORT, env.METRICS_HOST]).toEqual([9464, "127.0.0.1"]);
    expect(messageFor({ ...valid, PORT: "3000", METRICS_PORT: "3000" })).toBe(
      "Invalid environment: METRICS_PORT must differ from PORT (metrics are never public)",
    );
    expect(messageFor({ ...valid, METRICS_PORT: "metrics" })).toMatch(/^Invalid environment: METRICS_PORT /);
  });

  it("takes CLERK_API_CALLS_PER_10S as a whole number of calls, at least 1", () => {
    expect(parseEnv(valid).CLERK_API_CALLS_PER_10S).toBeUndefined();
    expect(parseEnv({ ...valid, CLERK_API_CALLS_PER_10S: "450" }).CLERK_API_CALLS_PER_10S).toBe(450);
    expect(messageFor({ ...valid, CLERK_API_CALLS_PER_10S: "0" })).toBe(
      "Invalid environment: CLERK_API_CALLS_PER_10S must be at least 1",
    );
    expect(messageFor({ ...valid, CLERK_API_CALLS_PER_10S: "90%" })).toMatch(
      /^Invalid environment: CLERK_API_CALLS_PER_10S /,
    );
    expect(messageFor({ ...valid, CLERK_API_CALLS_PER_10S: "12.5" })).toBe(
      "Invalid environment: CLERK_API_CALLS_PER_10S must be a whole number",
    );
  });

  it("takes the load-shedding limits as whole numbers, 0 turning one off, and defaults them when unset", () => {
    expect(sheddingLimits(parseEnv(valid))).toEqual({ maxInFlight: 128, maxEventLoopDelayMs: 150 });
    const set = parseEnv({ ...valid, SHED_MAX_IN_FLIGHT: "0", SHED_EVENT_LOOP_DELAY_MS: "400" });
    expect(sheddingLimits(set)).toEqual({ maxInFlight: 0, maxEventLoopDelayMs: 400 });
    expect(messageFor({ ...valid, SHED_MAX_IN_FLIGHT: "-1" })).toMatch(/^Invalid environment: SHED_MAX_IN_FLIGHT /);
    expect(messageFor({ ...valid, SHED_EVENT_LOOP_DELAY_MS: "1.5" })).toBe(
      "Invalid environment: SHED_EVENT_LOOP_DELAY_MS must be a whole number",
    );
  });

  it("treats an empty value as missing", () => {
    expect(messageFor({ ...valid, CLERK_SECRET_KEY: "" })).toMatch(
      /^Invalid environment: CLERK_SECRET_KEY is required/,
    );
  });

  it.each([
    [{ CLERK_PUBLISHABLE_KEY: "pk_nope" }, /CLERK_PUBLISHABLE_KEY must look like/],
    [{ CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("no dollar").toString("base64")}` }, /does not decode/],
    [
      { CLERK_PUBLISHABLE_KEY: `pk_test_${Buffer.from("clerk.example.com$").toString("base64")}` },
      /production key \(pk_live_…\)/,
    ],
    [{ SESSION_SECRET: "short" }, /SESSION_SECRET must be at least 32 characters/],
    [{ PORT: "eighty" }, /^Invalid environment: PORT /],
    [{ CLERK_JWT_KEY: "not a pem" }, /CLERK_JWT_KEY must be a PEM block/],
    [{ CLERK_JWT_KEY: "-----BEGIN PUBLIC KEY-----AAAA-----END PUBLIC KEY-----" }, /CLERK_JWT_KEY must be a PEM block/],
    [{ CLERK_JWT_KEY: `${rsaPem.slice(0, 120)}${rsaPem.slice(140)}` }, /CLERK_JWT_KEY must be a PEM block/],
    [{ CLERK_JWT_KEY: ecPem }, /CLERK_JWT_KEY must be a PEM block/],
    [{ POSTHOG_HOST: "not a url" }, /POSTHOG_HOST must be an absolute URL/],
    [{ POSTHOG_HOST: "https://user:pw@eu.i.posthog.com" }, /POSTHOG_HOST must be an http\(s\) URL without credentials/],
    [{ POSTHOG_HOST: "https://eu.i.posthog.com/?x=1" }, /POSTHOG_HOST must be an http\(s\) URL without credentials/],
    [{ POSTHOG_HOST: "file:///etc/passwd" }, /POSTHOG_HOST must be an http\(s\) URL without credentials/],
    [{ PUBLIC_ORIGIN: "" }, /^Invalid environment: PUBLIC_ORIGIN is required when Clerk keys are set/],
    [{ PUBLIC_ORIGIN: "https://teamwork.example.com/app" }, /PUBLIC_ORIGIN must be an origin/],
    [{ PUBLIC_ORIGIN: "teamwork.example.com" }, /PUBLIC_ORIGIN must be an origin/],
    [{ TRUST_PROXY: "" }, /^Invalid environment: TRUST_PROXY is required/],
    [{ TRUST_PROXY: "everyone" }, /TRUST_PROXY must be a hop count/],
    [{ TRUST_PROXY: "10.0.0.0/8, nonsense" }, /TRUST_PROXY must be a hop count/],
    [{ REDIS_URL: "localhost:6379" }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_CLUSTER_URLS: "redis://10.0.0.1:7000, 10.0.0.2:7000" }, /REDIS_CLUSTER_URLS must be comma-separated/],
    [{ REDIS_CLUSTER_URLS: "," }, /REDIS_CLUSTER_URLS must be comma-separated/],
    [
      { REDIS_URL: "redis://10.0.0.1:6379", REDIS_CLUSTER_URLS: "redis://10.0.0.1:7000" },
      /REDIS_CLUSTER_URLS cannot be set with REDIS_URL/,
    ],
  ])("rejects %j", (override, pattern) => {
    const message = messageFor({ ...valid, ...override });
    expect(message).toMatch(pattern);
    expect(message.split("\n")).toHaveLength(1);
  });

  it("reads a cluster's nodes from REDIS_CLUSTER_URLS", () => {
    const env = parseEnv({ ...valid, REDIS_CLUSTER_URLS: "redis://10.0.0.1:7000, rediss://u:p@10.0.0.2:7001" });
    expect(env.REDIS_CLUSTER_URLS).toEqual(["redis://10.0.0.1:7000", "rediss://u:p@10.0.0.2:7001"]);
    expect(env.REDIS_URL).toBeUndefined();
  });

  it("allows a test key outside production", () => {
    const pkTest = `pk_test_${Buffer.from("clerk.example.com$").toString("base64")}`;
    expect(parseEnv({ ...valid, NODE_ENV: "development", CLERK_PUBLISHABLE_KEY: pkTest }).CLERK_PUBLISHABLE_KEY).toBe(
      pkTest,
    );
  });
});
