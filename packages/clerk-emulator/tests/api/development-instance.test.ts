import { createPublicKey, generateKeyPairSync, randomBytes, verify } from "node:crypto";
import { createClerkClient } from "@clerk/backend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { emulatorIssuer, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { signJwt, signingKeyFromPem } from "../../src/domain/tokens";
import {
  errorCode,
  frontendClient,
  startInProcessEmulator,
  startStandaloneEmulator,
  type ApiReply,
  type InProcessEmulator,
} from "../../testing";

// Issue 68, item 2: a development instance (`--development`). clerk-js asks
// for a dev browser (`POST /v1/dev_browser`) and sends it with every Frontend
// API call as `__clerk_db_jwt`; the emulator finds the browser's client by it,
// never by a `__client` cookie, and refuses a dev browser it did not make with
// Clerk's 401 `dev_browser_unauthenticated`. @clerk/backend 2 in development
// sends a document without a dev browser, or with one in its URL, through the
// handshake, which hands the dev browser to the app in a cookie.

const APP = "http://127.0.0.1:3000";
const SECRET_KEY = `sk_test_emulator_${randomBytes(12).toString("hex")}`;
const PUBLISHABLE_KEY = emulatorPublishableKey(true);
let dev: InProcessEmulator;
let prod: InProcessEmulator;

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startInProcessEmulator({
      secretKey: SECRET_KEY,
      issuer: emulatorIssuer(true),
      development: true,
      // The app the handshake sends browsers back to.
      allowedOrigins: [APP],
    }),
    startInProcessEmulator(),
  ]);
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

type DevBrowserAnswer = { id: string; token: string; instance_id: string; client_id: null };

/** A new dev browser, as clerk-js asks for one. */
async function newDevBrowser(origin = dev.origin): Promise<DevBrowserAnswer> {
  const res = await fetch(`${origin}/__clerk/v1/dev_browser`, { method: "POST" });
  expect(res.status).toBe(200);
  return (await res.json()) as DevBrowserAnswer;
}

/** A Frontend API call as clerk-js makes it on a development instance: the dev browser in the query. */
async function fapi(
  method: string,
  path: string,
  devBrowser: string | null,
  form?: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<ApiReply & { setCookies: string[] }> {
  const url = new URL(`${dev.origin}/__clerk${path}`);
  url.searchParams.set("__clerk_api_version", "2025-11-10");
  if (devBrowser !== null) url.searchParams.set("__clerk_db_jwt", devBrowser);
  const res = await fetch(url, {
    method,
    headers: { ...(form ? { "Content-Type": "application/x-www-form-urlencoded" } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: "manual",
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : null,
    headers: res.headers,
    setCookies: res.headers.getSetCookie(),
  };
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

/** A dev browser with ada signed in on it, as clerk-js's sign-in leaves it. */
async function signedInDevBrowser() {
  const devBrowser = await newDevBrowser();
  const signIn = await fapi("POST", "/v1/client/sign_ins", devBrowser.id, {
    identifier: "ada@example.com",
    password: DEMO_PASSWORD,
  });
  expect(signIn.body.response.status).toBe("complete");
  return { devBrowser, sessionId: signIn.body.response.created_session_id as string, signIn };
}

describe("a development instance's dev browsers", () => {
  it("POST /v1/dev_browser answers Clerk's dev browser: a dvb_ id, and the same browser as a JWT the instance signs", async () => {
    const a = await newDevBrowser();
    const b = await newDevBrowser();
    expect(a.id).toMatch(/^dvb_[A-Za-z0-9]{27}$/);
    expect(b.id).not.toBe(a.id);
    expect(a).toMatchObject({ client_id: null, instance_id: dev.emulator.key.kid });
    const [header, payload, signature] = a.token.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toMatchObject({ alg: "RS256" });
    expect(claimsOf(a.token)).toMatchObject({ dev: a.id });
    const signed = verify(
      "RSA-SHA256",
      Buffer.from(`${header}.${payload}`),
      createPublicKey(dev.emulator.key.publicKeyPem),
      Buffer.from(signature!, "base64url"),
    );
    expect(signed).toBe(true);
  });

  it("finds the browser's client by __clerk_db_jwt (its id or its token), never by a __client cookie", async () => {
    const fresh = await newDevBrowser();
    // A new browser's first read gives it its client, signed out, as Clerk's development instances do
    // (Clerk's last-authentication-strategy spec reads `response.last_authentication_strategy` of it);
    // the next read is the same client.
    const read = await fapi("GET", "/v1/client", fresh.id);
    expect(read.body).toMatchObject({
      response: { object: "client", sessions: [], last_authentication_strategy: null, sign_in: null },
      client: null,
    });
    expect(read.body.response.id).toMatch(/^client_/);
    expect((await fapi("GET", "/v1/client", fresh.id)).body.response.id).toBe(read.body.response.id);
    expect(read.setCookies.filter((c) => c.startsWith("__client="))).toEqual([]);
    // A production instance still answers a browser without a client cookie with no client.
    expect((await frontendClient(prod.origin)("GET", "/v1/client")).body).toEqual({ response: null, client: null });

    const first = await signedInDevBrowser();
    const { devBrowser, signIn } = await signedInDevBrowser();
    // No `__client` cookie on a development instance: the dev browser is the browser's client.
    expect(signIn.setCookies.filter((c) => c.startsWith("__client="))).toEqual([]);
    const byId = await fapi("GET", "/v1/client", devBrowser.id);
    const byToken = await fapi("GET", "/v1/client", devBrowser.token);
    expect(byId.status).toBe(200);
    expect(byId.body.response.sessions).toHaveLength(1);
    expect(byId.body.response.sessions[0].user.id).toBe("user_seed_ada");
    expect(byToken.body.response.id).toBe(byId.body.response.id);
    // The scheme's older name, as Clerk's OpenAPI description gives it.
    const legacy = await fetch(`${dev.origin}/__clerk/v1/client?__dev_session=${devBrowser.token}`);
    expect(((await legacy.json()) as { response: { id: string } }).response.id).toBe(byId.body.response.id);
    // Each dev browser is its own browser: the first one's session is not this one's.
    const session = byId.body.response.sessions[0].id as string;
    expect(session).not.toBe(first.sessionId);

    // A token for the session, then signing out, through the same dev browser.
    const token = await fapi("POST", `/v1/client/sessions/${session}/tokens`, devBrowser.id, {});
    expect(claimsOf(token.body.jwt)).toMatchObject({ sub: "user_seed_ada", sid: session, iss: emulatorIssuer(true) });
    expect((await fapi("POST", `/v1/client/sessions/${session}/end`, devBrowser.id, {})).status).toBe(200);
    expect((await fapi("GET", "/v1/client", devBrowser.id)).body.response.sessions).toEqual([]);
    // The other dev browser is still signed in.
    expect((await fapi("GET", "/v1/client", first.devBrowser.id)).body.response.sessions).toHaveLength(1);

    // The client's id as a `__client` cookie finds nothing here: without a dev browser, Clerk's 401.
    const cookieOnly = await fapi("GET", "/v1/client", null, undefined, {
      Cookie: `__client=${byId.body.response.id}`,
    });
    expect(cookieOnly.status).toBe(401);
    expect(errorCode(cookieOnly)).toBe("dev_browser_unauthenticated");
  });

  it("refuses a dev browser it did not make with Clerk's 401 dev_browser_unauthenticated, never a 500", async () => {
    const real = await newDevBrowser();
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    const forgedJwt = signJwt(signingKeyFromPem(otherKey.toString(), dev.emulator.key.kid), { dev: real.id });
    const [h, , s] = real.token.split(".");
    const changedClaims = `${h}.${Buffer.from(JSON.stringify({ dev: "dvb_someoneelse" })).toString("base64url")}.${s}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify({ dev: real.id })).toString("base64url")}.`;
    for (const forged of [
      "dvb_2abcdefghijklmnopqrstuvwxyz",
      forgedJwt,
      changedClaims,
      unsigned,
      "not.a.jwt",
      "%%%",
      "",
    ]) {
      for (const [method, path] of [
        ["GET", "/v1/client"],
        ["POST", "/v1/client/sign_ins"],
        ["GET", "/v1/me"],
      ] as const) {
        const r = await fapi(method, path, forged, method === "POST" ? { identifier: "ada@example.com" } : undefined);
        expect(r.status, `${method} ${path} with ${forged}`).toBe(401);
        expect(r.body.errors[0]).toMatchObject({
          code: "dev_browser_unauthenticated",
          message: "Browser unauthenticated",
        });
      }
    }
    // The real one still works, and the environment (public, no client) answers without one.
    expect((await fapi("GET", "/v1/client", real.id)).status).toBe(200);
    const environment = await fapi("GET", "/v1/environment", null);
    expect(environment.body.display_config.instance_environment_type).toBe("development");
    expect(environment.body.auth_config.url_based_session_syncing).toBe(true);
  });

  it("the control API's ready-made session gives a __clerk_db_jwt cookie whose dev browser holds the session", async () => {
    const res = await fetch(`${dev.origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "grace@example.com" }),
    });
    const ready = (await res.json()) as { sessionId: string; cookies: { name: string; value: string }[] };
    const names = ready.cookies.map((c) => c.name);
    expect(names).toEqual(["__clerk_db_jwt", "__client_uat", "__session"]);
    const devBrowser = ready.cookies[0]!.value;
    const client = await fapi("GET", "/v1/client", devBrowser);
    expect(client.body.response.last_active_session_id).toBe(ready.sessionId);
  });
});

describe("the handshake on a development instance", () => {
  const handshake = (query: Record<string, string>) =>
    fetch(
      `${dev.origin}/__clerk/v1/client/handshake?${new URLSearchParams({ redirect_url: `${APP}/dashboard?tab=1`, format: "nonce", ...query })}`,
      { redirect: "manual" },
    );
  const payloadOf = async (nonce: string) => {
    const res = await fetch(`${dev.origin}/__clerk/api/v1/clients/handshake_payload?nonce=${nonce}`, {
      headers: { Authorization: `Bearer ${SECRET_KEY}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { directives: string[] }).directives;
  };
  const cookie = (directives: string[], name: string) =>
    directives
      .find((d) => d.startsWith(`${name}=`))
      ?.split(";")[0]!
      .slice(name.length + 1);

  it("carries the browser's dev browser back in the redirect and answers for its client", async () => {
    const { devBrowser } = await signedInDevBrowser();
    const res = await handshake({ __clerk_db_jwt: devBrowser.id });
    expect(res.status).toBe(307);
    const back = new URL(res.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(`${APP}/dashboard`);
    expect(back.searchParams.get("tab")).toBe("1");
    expect(back.searchParams.get("__clerk_db_jwt")).toBe(devBrowser.id);
    const directives = await payloadOf(back.searchParams.get("__clerk_handshake_nonce")!);
    expect(claimsOf(cookie(directives, "__session")!)).toMatchObject({
      sub: "user_seed_ada",
      iss: emulatorIssuer(true),
    });
    expect(Number(cookie(directives, "__client_uat"))).toBeGreaterThan(0);
    expect(cookie(directives, "__clerk_db_jwt")).toBe(devBrowser.id);
    // clerk-js reads the cookie: not HttpOnly, on the whole site.
    const devCookie = directives.find((d) => d.startsWith("__clerk_db_jwt="))!;
    expect(devCookie).toMatch(/Path=\//);
    expect(devCookie).not.toMatch(/HttpOnly/i);
  });

  it("gives a browser without a dev browser (or with one it does not know) a new one, signed out", async () => {
    const queries: Record<string, string>[] = [{}, { __clerk_db_jwt: "dvb_notonethisinstancemade0000" }];
    for (const query of queries) {
      const res = await handshake(query);
      expect(res.status).toBe(307);
      const back = new URL(res.headers.get("location")!);
      const given = back.searchParams.get("__clerk_db_jwt")!;
      expect(given).toMatch(/^dvb_/);
      expect(given).not.toBe("dvb_notonethisinstancemade0000");
      const directives = await payloadOf(back.searchParams.get("__clerk_handshake_nonce")!);
      expect(cookie(directives, "__clerk_db_jwt")).toBe(given);
      expect(cookie(directives, "__client_uat")).toBe("0");
      expect(cookie(directives, "__session")).toBe("");
      // The new dev browser is one the Frontend API knows.
      expect((await fapi("GET", "/v1/client", given)).body.response).toMatchObject({ object: "client", sessions: [] });
    }
  });

  it("@clerk/backend 2 in development: a first visit gets a dev browser through the handshake, and a signed-in one comes back signed in", async () => {
    const clerk = createClerkClient({
      secretKey: SECRET_KEY,
      publishableKey: PUBLISHABLE_KEY,
      apiUrl: `${dev.origin}/__clerk/api`,
      jwtKey: dev.emulator.key.publicKeyPem,
    });
    const proxyUrl = `${dev.origin}/__clerk`;
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    /** One document request to the app, as @clerk/remix's loader hands it to authenticateRequest. */
    const visit = (url: string) =>
      clerk.authenticateRequest(
        new Request(url, {
          headers: { Cookie: cookieHeader(), "Sec-Fetch-Dest": "document", Accept: "text/html" },
        }),
        { proxyUrl },
      );
    /** What the browser does with the app's answer: keep its cookies. */
    const keep = (headers: Headers) => {
      for (const c of headers.getSetCookie()) {
        const [pair] = c.split(";");
        const [name, ...value] = pair!.split("=");
        if (/Max-Age=0\b/i.test(c) || /Expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(name!);
        else jar.set(name!, value.join("="));
      }
    };
    /** Follows the handshake as the browser would: to the emulator (through the app's proxy), then back. */
    const throughHandshake = async (location: string) => {
      const hs = new URL(location);
      expect(`${hs.origin}${hs.pathname}`).toBe(`${proxyUrl}/v1/client/handshake`);
      const res = await fetch(hs, { redirect: "manual" });
      expect(res.status).toBe(307);
      return res.headers.get("location")!;
    };

    // 1. A first visit: development, no dev browser: the handshake, which makes one.
    const first = await visit(`${APP}/dashboard`);
    expect(first.status).toBe("handshake");
    expect(first.reason).toBe("dev-browser-missing");
    const back = await throughHandshake(first.headers.get("location")!);
    const devBrowser = new URL(back).searchParams.get("__clerk_db_jwt")!;
    // 2. Back on the app with the nonce: @clerk/backend sets the handshake's cookies (the dev browser among them),
    // and in development sends the browser on to the page without the handshake's query.
    const resolved = await visit(back);
    expect(resolved.status).toBe("signed-out");
    keep(resolved.headers);
    expect(jar.get("__clerk_db_jwt")).toBe(devBrowser);
    expect(resolved.headers.get("location")).toBe(`${APP}/dashboard`);
    expect((await visit(`${APP}/dashboard`)).status).toBe("signed-out");

    // 3. clerk-js signs in on that dev browser; clerk-js sets __client_uat, not __session yet: the handshake again,
    // with the dev browser, and the browser comes back signed in.
    const signIn = await fapi("POST", "/v1/client/sign_ins", devBrowser, {
      identifier: "ada@example.com",
      password: DEMO_PASSWORD,
    });
    expect(signIn.body.response.status).toBe("complete");
    const uat = signIn.setCookies.find((c) => c.startsWith("__client_uat="))!;
    keep(new Headers([["Set-Cookie", uat]]));
    const stale = await visit(`${APP}/dashboard`);
    expect(stale.status).toBe("handshake");
    const handshakeUrl = new URL(stale.headers.get("location")!);
    expect(handshakeUrl.searchParams.get("__clerk_db_jwt")).toBe(devBrowser);
    const signedInBack = await throughHandshake(handshakeUrl.href);
    const signedIn = await visit(signedInBack);
    expect(signedIn.status).toBe("signed-in");
    expect(signedIn.toAuth()).toMatchObject({ userId: "user_seed_ada" });
    keep(signedIn.headers);
    // 4. The next visit reads the cookies alone: signed in, no handshake.
    const again = await visit(`${APP}/dashboard`);
    expect(again.status).toBe("signed-in");
    expect(again.toAuth()).toMatchObject({ userId: "user_seed_ada" });
  });
});

describe("production mode is as before", () => {
  it("has no dev browsers, and reads the __client cookie whatever __clerk_db_jwt says", async () => {
    const refused = await fetch(`${prod.origin}/__clerk/v1/dev_browser`, { method: "POST" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("host_invalid");
    const browser = frontendClient(prod.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins?__clerk_db_jwt=dvb_whatever", {
      identifier: "ada@example.com",
      password: DEMO_PASSWORD,
    });
    expect(signIn.body.response.status).toBe("complete");
    expect(browser.cookie()).toMatch(/^__client=client_/);
    const client = await browser("GET", "/v1/client?__clerk_db_jwt=dvb_whatever");
    expect(client.body.response.sessions).toHaveLength(1);
    const environment = await browser("GET", "/v1/environment");
    expect(environment.body.display_config.instance_environment_type).toBe("production");
    expect(environment.body.auth_config.url_based_session_syncing).toBe(false);
  });
});

describe("npm run emulator -- --development", () => {
  it("prints a development instance's keys, and serves it", async () => {
    const emulator = await startStandaloneEmulator(["--development"]);
    try {
      const env = Object.fromEntries(
        [...emulator.output().matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]),
      );
      expect(env.CLERK_PUBLISHABLE_KEY).toBe(PUBLISHABLE_KEY);
      expect(Buffer.from(env.CLERK_PUBLISHABLE_KEY!.slice("pk_test_".length), "base64").toString()).toBe(
        "clerk-emulator.clerk.accounts.dev$",
      );
      expect(env.CLERK_SECRET_KEY).toMatch(/^sk_test_emulator_[0-9a-f]{64}$/);
      expect(emulator.output()).toMatch(/development instance/);
      const created = await fetch(`${emulator.url}/v1/dev_browser`, { method: "POST" });
      expect(((await created.json()) as { id: string }).id).toMatch(/^dvb_/);
      // The printed secret key is the Backend API's.
      const clerk = createClerkClient({ secretKey: env.CLERK_SECRET_KEY!, apiUrl: env.CLERK_API_URL! });
      expect((await clerk.users.getUserList({ emailAddress: ["ada@example.com"] })).data).toHaveLength(1);
    } finally {
      await emulator.stop();
    }
  }, 30_000);
});
