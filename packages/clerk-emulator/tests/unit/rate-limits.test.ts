import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createClerkEmulator, type ClerkEmulator } from "../../src";
import type { RateLimitMode } from "../../src/http/rate-limits";

// Clerk's documented limits ("System limits"), answered as Clerk answers them:
// 429, Retry-After in seconds, and Clerk's error envelope.
const SECRET = "sk_live_emulator_rate_limits";
let now = 1_700_000_000_000;
let server: Server | null = null;
let emulator: ClerkEmulator | null = null;

async function start(mode: RateLimitMode): Promise<string> {
  emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "",
    secretKey: SECRET,
    issuer: "https://clerk.emulator.invalid",
    rateLimits: mode,
    rateLimitClock: () => now,
  });
  const app = express();
  app.use(emulator.router);
  server = createServer(app);
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  emulator?.close();
  await new Promise((done) => (server ? server.close(done) : done(null)));
  server = null;
});

const backend = (origin: string, path: string, init: RequestInit = {}) =>
  fetch(`${origin}/api${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json", ...init.headers },
  });

/** `n` calls, a few at a time; the statuses in order. */
async function statuses(n: number, call: (i: number) => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, j) => call(i + j)));
    for (const res of batch) {
      out.push(res.status);
      await res.arrayBuffer();
    }
  }
  return out;
}

async function expectTooManyRequests(res: Response, retryAfter: number) {
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe(String(retryAfter));
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as { errors: { code: string; message: string; long_message: string }[] };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]).toMatchObject({ code: "too_many_requests" });
  expect(body.errors[0]!.message).toEqual(expect.any(String));
  expect(body.errors[0]!.long_message).toEqual(expect.any(String));
}

describe("the emulator's rate limits", () => {
  it("allow a development instance 100 Backend API calls per 10 s, then answer 429 until the window moves on", async () => {
    const origin = await start("development");
    expect(new Set(await statuses(100, () => backend(origin, "/v1/users")))).toEqual(new Set([200]));
    now += 4_000;
    await expectTooManyRequests(await backend(origin, "/v1/users/count"), 6);
    // The JWKS is not limited.
    expect((await backend(origin, "/v1/jwks")).status).toBe(200);
    now += 6_000;
    expect((await backend(origin, "/v1/users")).status).toBe(200);
  });

  it("allow a production instance 1,000 calls per 10 s", async () => {
    const origin = await start("production");
    const codes = await statuses(1_001, () => backend(origin, "/v1/users/count"));
    expect(codes.filter((c) => c === 200)).toHaveLength(1_000);
    await expectTooManyRequests(await backend(origin, "/v1/users/count"), 10);
  });

  it("count only the instance's own calls: a wrong secret key is a 401, not a used call", async () => {
    const origin = await start("development");
    const wrong = await statuses(120, () =>
      fetch(`${origin}/api/v1/users`, { headers: { Authorization: "Bearer sk_live_other" } }),
    );
    expect(new Set(wrong)).toEqual(new Set([401]));
    expect((await backend(origin, "/v1/users")).status).toBe(200);
  });

  it("allow 100 instance invitations per hour", async () => {
    const origin = await start("production");
    const invite = (i: number) =>
      backend(origin, "/v1/invitations", {
        method: "POST",
        body: JSON.stringify({ email_address: `person${i}@example.com` }),
      });
    // Spread over the hour so the instance-wide limit is never the one reached.
    const codes: number[] = [];
    for (let i = 0; i < 100; i++) {
      codes.push((await invite(i)).status);
      now += 30_000;
    }
    expect(new Set(codes)).toEqual(new Set([200]));
    await expectTooManyRequests(await invite(100), 3_600 - 100 * 30);
    // Other endpoints are not held by it.
    expect((await backend(origin, "/v1/users")).status).toBe(200);
  });

  it("allow 5 sign-ins per 10 s from one address on the Frontend API", async () => {
    const origin = await start("development");
    const signIn = () =>
      fetch(`${origin}/v1/client/sign_ins`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "identifier=ada%40example.com",
      });
    expect(await statuses(5, signIn)).toEqual([200, 200, 200, 200, 200]);
    await expectTooManyRequests(await signIn(), 10);
  });

  it("are off unless asked for", async () => {
    const origin = await start("off");
    expect(new Set(await statuses(150, () => backend(origin, "/v1/users/count")))).toEqual(new Set([200]));
  });
});
