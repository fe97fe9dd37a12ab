import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createClerkClient } from "@clerk/backend";
import { chromium, type Browser } from "@playwright/test";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClerkEmulator, DEMO_PASSWORD, type ClerkEmulator } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { emulatorIssuer, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { isLoopbackUrl } from "../../testing";
import { REPO_ROOT } from "../support/paths";

// Issue 68, item 2: the real clerk-js 5 in Chromium against a development
// instance. An app page whose server asks @clerk/backend 2 who is signed in
// (as @clerk/remix's loader does), clerk-js loaded through the emulator's
// proxy path. The first visit goes through the handshake, which gives the
// browser its dev browser (`__clerk_db_jwt`); clerk-js sends it with every
// Frontend API call, signs in on it, and after a reload both the app's server
// and clerk-js see the same person, with no `__client` cookie anywhere.

const SECRET_KEY = `sk_test_emulator_${randomBytes(12).toString("hex")}`;
const PUBLISHABLE_KEY = emulatorPublishableKey(true);
let emulator: ClerkEmulator;
let server: Server;
let origin = "";
let browser: Browser;
const offLoopback: string[] = [];

/** The app's page: its server asks @clerk/backend, in development, who the browser is, as @clerk/remix's loader does. */
async function appPage(req: express.Request, res: express.Response) {
  const clerk = createClerkClient({
    secretKey: SECRET_KEY,
    publishableKey: PUBLISHABLE_KEY,
    apiUrl: `${origin}/__clerk/api`,
    jwtKey: emulator.key.publicKeyPem,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const state = await clerk.authenticateRequest(new Request(`${origin}${req.originalUrl}`, { headers }), {
    proxyUrl: `${origin}/__clerk`,
  });
  for (const cookie of state.headers.getSetCookie()) res.append("Set-Cookie", cookie);
  const location = state.headers.get("location");
  if (location) return res.set("Cache-Control", "no-store").redirect(307, location);
  const userId = state.status === "signed-in" ? state.toAuth().userId : "none";
  res.type("html").send(`<!doctype html><html><head><script
    data-clerk-publishable-key="${PUBLISHABLE_KEY}"
    data-clerk-proxy-url="${origin}/__clerk"
    src="/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js"></script></head>
    <body><p id="server-user">${userId}</p></body></html>`);
}

beforeAll(async () => {
  emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "/__clerk",
    secretKey: SECRET_KEY,
    issuer: emulatorIssuer(true),
    development: true,
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
  });
  const app = express();
  app.use("/__clerk", createScriptCdn({ dirs: [join(REPO_ROOT, "node_modules")] }));
  app.use("/__clerk", emulator.router);
  // The app's page: its server reads the browser's cookies with @clerk/backend, in development.
  app.get("/", (req, res, next) => void appPage(req, res).catch(next));
  server = createServer(app);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  emulator?.close();
  expect(offLoopback).toEqual([]);
});

type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  user: { id: string } | null | undefined;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
};
type ClerkWindow = { Clerk?: ClerkJs };

it("clerk-js 5 signs in on a development instance through its dev browser, and stays signed in across a reload", async () => {
  const context = await browser.newContext();
  await context.route(
    (url) => !isLoopbackUrl(url.href),
    (route) => {
      offLoopback.push(route.request().url());
      return route.abort();
    },
  );
  try {
    const page = await context.newPage();
    // Every Frontend API call clerk-js makes, with the dev browser it carried.
    const fapiCalls: { path: string; devBrowser: string | null }[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin === origin && url.pathname.startsWith("/__clerk/v1/") && request.resourceType() !== "document")
        fapiCalls.push({ path: url.pathname, devBrowser: url.searchParams.get("__clerk_db_jwt") });
    });
    const loadClerk = () =>
      page.evaluate(async () => {
        const w = window as unknown as ClerkWindow;
        while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
        await w.Clerk.load();
        return w.Clerk.user?.id ?? null;
      });

    // The first visit: the handshake gives the browser a dev browser, signed out; the page's URL is clean again.
    const first = await page.goto(`${origin}/`);
    expect(first?.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/`);
    expect(await page.textContent("#server-user")).toBe("none");
    const cookies = await context.cookies(origin);
    const devBrowser = cookies.find((c) => c.name === "__clerk_db_jwt")?.value;
    expect(devBrowser).toMatch(/^dvb_/);
    expect(await loadClerk()).toBeNull();

    const signedInAs = await page.evaluate(async (password) => {
      const Clerk = (window as unknown as ClerkWindow).Clerk!;
      const signIn = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
      await Clerk.setActive({ session: signIn.createdSessionId });
      return Clerk.user?.id ?? null;
    }, DEMO_PASSWORD);
    expect(signedInAs).toBe("user_seed_ada");
    // clerk-js sent the handshake's dev browser with every call, and needed no other.
    expect(fapiCalls.length).toBeGreaterThan(2);
    expect(fapiCalls.filter((c) => c.devBrowser !== devBrowser)).toEqual([]);
    expect(fapiCalls.map((c) => c.path)).not.toContain("/__clerk/v1/dev_browser");
    expect(fapiCalls.map((c) => c.path)).toContain("/__clerk/v1/client/sign_ins");

    // A reload: the app's server reads the session from the cookies, and clerk-js finds it through the dev browser.
    fapiCalls.length = 0;
    await page.reload();
    expect(await page.textContent("#server-user")).toBe("user_seed_ada");
    expect(await loadClerk()).toBe("user_seed_ada");
    expect(fapiCalls.length).toBeGreaterThan(0);
    expect(fapiCalls.filter((c) => c.devBrowser !== devBrowser)).toEqual([]);
    // A development instance's browser never gets a `__client` cookie.
    expect((await context.cookies(origin)).map((c) => c.name)).not.toContain("__client");
  } finally {
    await context.close();
  }
}, 60_000);
