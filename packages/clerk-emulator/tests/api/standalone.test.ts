import type { ChildProcess } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import { createClerkClient, verifyToken } from "@clerk/backend";
import { verifyWebhook } from "@clerk/backend/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { freePort, NETWORK_GUARD_PATH } from "../../testing";
import { spawnGroup, stopGroup } from "../../testing/process-group";
import { PACKAGE_ROOT, REPO_ROOT } from "../support/paths";

// `npm run emulator` as another app would use it: its own process (and process
// group), its keys read from what it prints, its APIs called as Clerk's SDKs
// and Clerk's documented Frontend API proxy call them, its webhooks received.
const APP_ORIGIN = "http://app.example.test:3000";
const PROXY_URL = `${APP_ORIGIN}/__clerk`;

type Received = { type: string; data: Record<string, unknown> };
const received: Received[] = [];
let receiver: Server;
let emulator: ChildProcess | null = null;
let output = "";
let env: Record<string, string> = {};
let url = "";

/** Until `pattern` shows in the emulator's output, or it exits. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 20 s:\n${output}`)), 20_000);
    const check = () => {
      if (!pattern.test(output)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited (${code}):\n${output}`));
    });
  });
}

/** The emulator as the app's reverse proxy would reach it: Clerk's proxy headers, the app's host. */
const proxied = (cookie?: string): Record<string, string> => ({
  "Clerk-Proxy-Url": PROXY_URL,
  "Clerk-Secret-Key": env.CLERK_SECRET_KEY!,
  "X-Forwarded-Host": "app.example.test:3000",
  "X-Forwarded-Proto": "http",
  "X-Forwarded-For": "203.0.113.7",
  ...(cookie ? { Cookie: cookie } : {}),
});

beforeAll(async () => {
  const receiverPort = await freePort();
  const secret = () => env.CLERK_WEBHOOK_SIGNING_SECRET!;
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = new Headers(req.headers as Record<string, string>);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body });
      // Clerk's own verifier: a GitHub-style or unsigned webhook would be refused here.
      void verifyWebhook(request, { signingSecret: secret() }).then(
        (event) => {
          received.push({ type: event.type, data: event.data as unknown as Record<string, unknown> });
          res.writeHead(204).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((done) => receiver.listen(receiverPort, "127.0.0.1", done));

  const port = await freePort();
  const child = spawnGroup(
    process.execPath,
    [
      join(PACKAGE_ROOT, "bin/clerk-emulator.mjs"),
      "--port",
      String(port),
      "--data-dir",
      "memory",
      "--webhook-url",
      `http://127.0.0.1:${receiverPort}/webhooks/clerk`,
      "--allowed-origin",
      "http://other.example.test:4000",
      "--proxy-url",
      PROXY_URL,
    ],
    // From the app's root, as `npx clerk-emulator` runs there: its node_modules hold the clerk-js it serves.
    REPO_ROOT,
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // Nothing beyond loopback, and every answer checked against Clerk's spec.
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR,
      NODE_ENV: "test",
    },
  );
  emulator = child;
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  await waitForOutput(child, /^CLERK_PROXY_URL=.*$/m);
  env = Object.fromEntries([...output.matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  url = /listening on (http:\S+)/.exec(output)![1]!;
}, 30_000);

afterAll(async () => {
  // The whole group, whatever happened above.
  await stopGroup(emulator, "SIGKILL");
  await new Promise((done) => receiver?.close(done));
});

describe("npm run emulator", () => {
  it("prints the .env lines another app needs", () => {
    expect(url).toBe(`http://127.0.0.1:${new URL(url).port}`);
    expect(env.CLERK_PUBLISHABLE_KEY).toMatch(/^pk_live_/);
    expect(env.CLERK_SECRET_KEY).toMatch(/^sk_live_/);
    expect(env.CLERK_JWT_KEY).toMatch(/^-----BEGIN PUBLIC KEY-----[A-Za-z0-9+/=]+-----END PUBLIC KEY-----$/);
    expect(env.CLERK_WEBHOOK_SIGNING_SECRET).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(env.CLERK_API_URL).toBe(`${url}/api`);
    expect(env.CLERK_PROXY_URL).toBe(PROXY_URL);
  });

  it("serves the Backend API to @clerk/backend with the printed secret key, and no other", async () => {
    const clerk = createClerkClient({ secretKey: env.CLERK_SECRET_KEY!, apiUrl: env.CLERK_API_URL! });
    const users = await clerk.users.getUserList({ emailAddress: ["ada@example.com"] });
    expect(users.data.map((u) => u.primaryEmailAddress?.emailAddress)).toEqual(["ada@example.com"]);

    const wrong = await fetch(`${url}/api/v1/users`, { headers: { Authorization: "Bearer sk_live_wrong" } });
    expect(wrong.status).toBe(401);
  });

  it("serves the Frontend API's environment", async () => {
    const res = await fetch(`${url}/v1/environment?__clerk_api_version=2026-05-12`, { headers: proxied() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { auth_config?: unknown; display_config?: unknown };
    expect(body.auth_config).toBeTruthy();
    expect(body.display_config).toBeTruthy();
  });

  it("signs in through the app's proxy and hands a fresh token back through the handshake", async () => {
    const signIn = await fetch(`${url}/v1/client/sign_ins?__clerk_api_version=2026-05-12`, {
      method: "POST",
      headers: { ...proxied(), "Content-Type": "application/x-www-form-urlencoded", Origin: APP_ORIGIN },
      body: new URLSearchParams({ identifier: "ada@example.com", password: DEMO_PASSWORD, strategy: "password" }),
    });
    expect(signIn.status).toBe(200);
    expect(((await signIn.json()) as { response: { status: string } }).response.status).toBe("complete");
    // The browser holds the client cookie on the proxy's path, as it sees the Frontend API there.
    const clientCookie = signIn.headers.getSetCookie().find((c) => c.startsWith("__client="))!;
    expect(clientCookie).toContain("Path=/__clerk;");
    const cookie = clientCookie.split(";")[0]!;

    // What Core 3's @clerk/backend sends a document request to after the token expired.
    const query = (redirect: string) =>
      new URLSearchParams({
        redirect_url: redirect,
        format: "nonce",
        __clerk_api_version: "2026-05-12",
        suffixed_cookies: "false",
      });
    const handshake = await fetch(`${url}/v1/client/handshake?${query(`${APP_ORIGIN}/dashboard?tab=1`)}`, {
      headers: proxied(cookie),
      redirect: "manual",
    });
    expect(handshake.status).toBe(307);
    const back = new URL(handshake.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(`${APP_ORIGIN}/dashboard`);
    const nonce = back.searchParams.get("__clerk_handshake_nonce")!;
    expect(nonce).toBeTruthy();

    // The app's server redeems the nonce with its secret key and finds a session token it can verify offline.
    const payload = await fetch(`${env.CLERK_API_URL}/v1/clients/handshake_payload?nonce=${nonce}`, {
      headers: { Authorization: `Bearer ${env.CLERK_SECRET_KEY}` },
    });
    const { directives } = (await payload.json()) as { directives: string[] };
    const token = /^__session=([^;]+)/.exec(directives.find((d) => d.startsWith("__session="))!)![1]!;
    const claims = await verifyToken(token, { jwtKey: env.CLERK_JWT_KEY! });
    expect(claims.sub).toMatch(/^user_/);

    // Another allowed origin is fine; any other is not, whatever the request's host.
    const other = await fetch(`${url}/v1/client/handshake?${query("http://other.example.test:4000/")}`, {
      headers: proxied(cookie),
      redirect: "manual",
    });
    expect(other.status).toBe(307);
    const evil = await fetch(`${url}/v1/client/handshake?${query("https://evil.example.test/")}`, {
      headers: proxied(cookie),
      redirect: "manual",
    });
    expect(evil.status).toBe(400);
    expect(((await evil.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("form_param_value_invalid");
  });

  it("serves clerk-js from the installed packages as Clerk's CDN would, through the proxy", async () => {
    const script = await fetch(`${url}/npm/@clerk/clerk-js@5/dist/clerk.browser.js`, { headers: proxied() });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    // Another major than the one installed, or a file outside the package's dist/, is not there.
    expect((await fetch(`${url}/npm/@clerk/clerk-js@4/dist/clerk.browser.js`)).status).toBe(404);
    expect((await fetch(`${url}/npm/@clerk/clerk-js@5/package.json`)).status).toBe(404);
    expect((await fetch(`${url}/npm/@clerk/clerk-js@5/dist/..%2F..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  it("refuses a proxy that names another instance's secret key", async () => {
    const res = await fetch(`${url}/v1/environment`, {
      headers: { ...proxied(), "Clerk-Secret-Key": "sk_live_someone_else" },
    });
    expect(res.status).toBe(401);
  });

  it("answers only at its loopback names on its port, or the proxy's host: a DNS-rebinding page gets a short 421", async () => {
    const port = Number(new URL(url).port);
    /** A raw request with `host` as its Host header, as a page under a rebound name sends it. */
    const as = (host: string, path: string, method = "GET") =>
      new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, method, headers: { Host: host } }, (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode!, type: res.headers["content-type"] ?? "", body }));
        });
        req.once("error", reject);
        req.end();
      });
    for (const host of [`evil.example:${port}`, "evil.example", `localhost:${port + 1}`, `127.0.0.2:${port}`]) {
      for (const [method, path] of [
        ["GET", "/v1/environment"],
        ["GET", "/v1/client"],
        ["POST", "/v1/client/sign_ins"],
        ["GET", "/api/v1/users"],
      ] as const) {
        const refused = await as(host, path, method);
        expect([host, path, refused.status]).toEqual([host, path, 421]);
        expect(refused.type).toMatch(/^text\/plain/);
        expect(refused.body.split("\n").filter(Boolean)).toHaveLength(1);
        expect(refused.body).not.toMatch(/\n\s+at |Error/);
      }
    }
    for (const host of [
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "app.example.test:3000",
    ]) {
      expect([host, (await as(host, "/v1/environment")).status]).toEqual([host, 200]);
    }
    // Whatever the name, the health check says only that it runs.
    expect(await as("evil.example", "/healthz")).toMatchObject({ status: 200, body: "ok" });
  });

  it("delivers Svix-signed webhooks that Clerk's verifyWebhook accepts", async () => {
    const clerk = createClerkClient({ secretKey: env.CLERK_SECRET_KEY!, apiUrl: env.CLERK_API_URL! });
    const name = `Standalone ${Date.now()}`;
    const org = await clerk.organizations.createOrganization({ name });
    await expect
      .poll(() => received.find((e) => e.type === "organization.created" && e.data.id === org.id), { timeout: 10_000 })
      .toBeTruthy();
  });

  it("stops cleanly on SIGTERM", async () => {
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      emulator!.once("exit", (code, signal) => done([code, signal])),
    );
    process.kill(-emulator!.pid!, "SIGTERM");
    expect(await exited).toEqual([0, null]);
    expect(output).toContain("SIGTERM: stopping the Clerk emulator.");
  });
});
