import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createClerkClient } from "@clerk/backend";
import { chromium, type Browser } from "@playwright/test";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClerkEmulator, DEMO_PASSWORD, type ClerkEmulator } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { isLoopbackUrl } from "../../testing";
import { CORE3_FIXTURE, REPO_ROOT } from "../support/paths";

// Issue 49: the real clerk-js (5 from this app's packages, 6 from the Core 3
// fixture's) in Chromium, on a bare page that loads it through the emulator's
// proxy path as Clerk's CDN would: `session.getToken({ template })` asks the
// Frontend API for a JWT template's token, and signing in with an actor
// token's ticket (what clerk-js does with `__clerk_ticket`) makes an
// impersonated session whose token @clerk/backend reads `actor` from.

const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const TEMPLATE = "browser-template";
let emulator: ClerkEmulator;
let server: Server;
let origin = "";
let browser: Browser;
const offLoopback: string[] = [];

beforeAll(async () => {
  emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "/__clerk",
    secretKey: SECRET_KEY,
    issuer: EMULATOR_ISSUER,
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
  });
  const app = express();
  app.use(
    "/__clerk",
    createScriptCdn({ dirs: [join(REPO_ROOT, "node_modules"), join(CORE3_FIXTURE, "node_modules")] }),
  );
  app.use("/__clerk", emulator.router);
  // A page with nothing but clerk-js, configured as Clerk's script tag configures it.
  app.get("/:major", (req, res) => {
    const major = req.params.major === "6" ? "6" : "5";
    res.type("html").send(`<!doctype html><html><head><script
      data-clerk-publishable-key="${emulatorPublishableKey()}"
      data-clerk-proxy-url="${origin}/__clerk"
      src="/__clerk/npm/@clerk/clerk-js@${major}/dist/clerk.browser.js"></script></head><body></body></html>`);
  });
  server = createServer(app);
  // Longer than a test's browser steps: a kept-alive socket the server closed meanwhile is a reset for the SDK's next call.
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

const decode = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

type ClerkJs = {
  version: string;
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
  session: { actor: unknown; getToken(options?: { template?: string }): Promise<string | null> };
};
/** The page's `window`, as clerk-js's script tag and inClerkJs leave it. */
type ClerkWindow = { Clerk?: ClerkJs; __clerkLoaded?: Promise<ClerkJs> };

/** Runs `fn` in a fresh browser on the page with clerk-js `major`, once clerk-js has loaded. */
async function inClerkJs<A, R>(major: string, fn: (args: A) => Promise<R>, args: A): Promise<R> {
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
    await page.goto(`${origin}/${major}`);
    await page.evaluate(() => {
      const w = window as unknown as ClerkWindow;
      w.__clerkLoaded = (async () => {
        while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
        await w.Clerk.load();
        return w.Clerk;
      })();
    });
    return (await page.evaluate(fn as (arg: unknown) => Promise<unknown>, args)) as R;
  } finally {
    await context.close();
  }
}

describe.each(["5", "6"])("clerk-js %s in Chromium", (major) => {
  it("getToken({ template }) mints the template's token; an unknown template is Clerk's 404; an actor token's ticket signs in as the user with `act`", async () => {
    const clerk = createClerkClient({ secretKey: SECRET_KEY, apiUrl: `${origin}/__clerk/api` });
    const existing = await clerk.jwtTemplates.list();
    if (!existing.data.some((t) => t.name === TEMPLATE)) {
      await clerk.jwtTemplates.create({
        name: TEMPLATE,
        claims: { aud: "browser", email: "{{user.primary_email_address}}", name: "{{user.full_name}}" },
      });
    }
    const actorToken = await clerk.actorTokens.create({ userId: "user_seed_grace", actor: { sub: "user_seed_ada" } });

    const signedIn = await inClerkJs(
      major,
      async ({ template, password }) => {
        const Clerk = await (window as unknown as ClerkWindow).__clerkLoaded!;
        const signIn = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
        await Clerk.setActive({ session: signIn.createdSessionId });
        const templateToken = await Clerk.session.getToken({ template });
        const unknown = await Clerk.session.getToken({ template: "no-such-template" }).then(
          () => null,
          (e: { status?: number; errors?: { code: string }[] }) => ({ status: e.status, code: e.errors?.[0]?.code }),
        );
        return { version: Clerk.version, templateToken, unknown };
      },
      { template: TEMPLATE, password: DEMO_PASSWORD },
    );
    // A browser of its own: what clerk-js does with an impersonation link's `__clerk_ticket`.
    const impersonated = await inClerkJs(
      major,
      async ({ ticket }) => {
        const Clerk = await (window as unknown as ClerkWindow).__clerkLoaded!;
        const signIn = await Clerk.client.signIn.create({ strategy: "ticket", ticket });
        await Clerk.setActive({ session: signIn.createdSessionId });
        return { actor: Clerk.session.actor, token: await Clerk.session.getToken() };
      },
      { ticket: actorToken.token! },
    );

    expect(signedIn.version).toMatch(new RegExp(`^${major}\\.`));
    expect(decode(signedIn.templateToken!)).toMatchObject({
      aud: "browser",
      email: "ada@example.com",
      name: "Ada Lovelace",
      sub: "user_seed_ada",
      azp: origin,
    });
    expect(signedIn.unknown).toEqual({ status: 404, code: "resource_not_found" });
    expect(impersonated.actor).toEqual({ sub: "user_seed_ada" });

    const state = await clerk.authenticateRequest(
      new Request("http://127.0.0.1/", { headers: { Authorization: `Bearer ${impersonated.token}` } }),
      { jwtKey: emulator.key.publicKeyPem, publishableKey: emulatorPublishableKey() },
    );
    expect(state.status).toBe("signed-in");
    expect(state.toAuth()).toMatchObject({ userId: "user_seed_grace", actor: { sub: "user_seed_ada" } });
  });
});
