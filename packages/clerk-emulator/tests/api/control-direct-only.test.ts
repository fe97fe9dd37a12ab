import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startInProcessEmulator,
  startStandaloneEmulator,
  type InProcessEmulator,
  type StandaloneEmulator,
} from "../../testing";

// Security finding: through the documented nginx rule for `/__clerk`, the
// control API answered `GET /__clerk/_emulator/state` (every user, every
// `__client` id, pending handshake tokens) and `POST …/_emulator/sessions`
// (a signed-in session for anyone). nginx rewrites `Host`, so the standalone
// emulator's Host check let it through. The control API now answers only a
// request sent to the emulator straight: one a proxy forwarded is a 403.
const PROXY_URL = "http://app.example.test:3000/__clerk";

/** What each kind of proxy adds (nginx, Apache, Traefik, Caddy, http-proxy's `xfwd`, Clerk's documented proxy). */
const PROXY_HEADERS: Record<string, string> = {
  "X-Forwarded-For": "203.0.113.7",
  "X-Forwarded-Host": "app.example.test:3000",
  "X-Forwarded-Proto": "https",
  "X-Forwarded-Port": "443",
  "X-Real-IP": "203.0.113.7",
  Forwarded: "for=203.0.113.7;proto=https",
  "Clerk-Proxy-Url": PROXY_URL,
  Via: "1.1 proxy.example",
};

let standalone: StandaloneEmulator | undefined;
let inProcess: InProcessEmulator | undefined;

beforeAll(async () => {
  [standalone, inProcess] = await Promise.all([
    startStandaloneEmulator(["--control", "--proxy-url", PROXY_URL]),
    startInProcessEmulator(),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([standalone?.stop(), inProcess?.close()]);
});

type Reply = { status: number; body: unknown; cacheControl: string | null };

async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  expect(res.headers.get("content-type"), `${init.method ?? "GET"} ${url}`).toMatch(/^application\/json/);
  return { status: res.status, body: JSON.parse(text) as unknown, cacheControl: res.headers.get("cache-control") };
}

const state = (base: string, headers: Record<string, string> = {}) => call(`${base}/state`, { headers });
const newSession = (base: string, headers: Record<string, string> = {}) =>
  call(`${base}/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ email: "ada@example.com" }),
  });

const refusal = expect.objectContaining({
  errors: [
    expect.objectContaining({
      code: "control_api_direct_only",
      long_message: expect.stringContaining("came through a proxy") as unknown,
    }),
  ],
});

const sessionCount = async (base: string) => ((await state(base)).body as { sessions: unknown[] }).sessions.length;

// The standalone emulator (`npm run emulator -- --control`) and the mount local mode and the tests use (`/__clerk/_emulator`).
const hosts = [
  ["the standalone emulator", () => `${standalone!.url}/_emulator`],
  ["the emulator mounted at /__clerk", () => `${inProcess!.origin}/__clerk/_emulator`],
] as const;

describe.each(hosts)("the control API on %s", (_name, base) => {
  it("answers a request sent straight to it", async () => {
    const direct = await state(base());
    expect(direct.status).toBe(200);
    expect((direct.body as { users: { id: string }[] }).users.length).toBeGreaterThan(0);
    const made = await newSession(base());
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ sessionToken: expect.any(String) as unknown });
  });

  it.each(Object.entries(PROXY_HEADERS))(
    "refuses GET state carrying %s with a 403 that says why",
    async (name, value) => {
      const refused = await state(base(), { [name]: value });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(refusal);
      expect(JSON.stringify(refused.body)).toContain(name.toLowerCase());
      expect(JSON.stringify(refused.body)).not.toContain("ada@example.com");
      expect(refused.cacheControl).toBe("no-store");
    },
  );

  it.each(Object.entries(PROXY_HEADERS))("mints no session for a POST sessions carrying %s", async (name, value) => {
    const before = await sessionCount(base());
    const refused = await newSession(base(), { [name]: value });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal);
    expect(JSON.stringify(refused.body)).not.toMatch(/sessionToken|eyJ/);
    expect(await sessionCount(base())).toBe(before);
  });

  it("refuses a proxied request before reading its body, and whatever the path's case (Express's routes ignore it)", async () => {
    const garbled = await call(`${base()}/reset`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.7" },
      body: "{not json",
    });
    expect(garbled.status).toBe(403);
    expect(garbled.body).toEqual(refusal);
    const shouted = await call(base().replace(/_emulator$/, "_EMULATOR/state"), { headers: { Via: "1.1 nginx" } });
    expect(shouted.status).toBe(403);
  });
});

describe("the standalone emulator's control API", () => {
  it("is not at the proxy's host even with no forwarded headers (a proxy that keeps the browser's Host)", async () => {
    const port = new URL(standalone!.url).port;
    const asProxyHost = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/_emulator/state", headers: { Host: new URL(PROXY_URL).host } },
        (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.once("error", reject);
      req.end();
    });
    expect(asProxyHost.status).toBe(403);
    expect(JSON.parse(asProxyHost.body)).toMatchObject({ errors: [{ code: "control_api_direct_only" }] });
    // Clerk's own APIs still answer proxied requests: the browser reaches them through the proxy.
    expect((await fetch(`${standalone!.url}/v1/environment`, { headers: PROXY_HEADERS })).status).toBe(200);
  });
});
