import { createClerkClient } from "@clerk/backend";
import type express from "express";
import { expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { browserAppForTests, clerkJsPage } from "../support/browser-app";

// Issue 68, item 2: the real clerk-js 5 in Chromium against a development
// instance. An app page whose server asks @clerk/backend 2 who is signed in
// (as @clerk/remix's loader does), clerk-js loaded through the emulator's
// proxy path. The first visit goes through the handshake, which gives the
// browser its dev browser (`__clerk_db_jwt`); clerk-js sends it with every
// Frontend API call, signs in on it, and after a reload both the app's server
// and clerk-js see the same person, with no `__client` cookie anywhere.

/** The app's page: its server asks @clerk/backend, in development, who the browser is, as @clerk/remix's loader does. */
async function appPage(req: express.Request, res: express.Response) {
  const { origin } = app;
  const clerk = createClerkClient({
    secretKey: app.secretKey,
    publishableKey: app.publishableKey,
    apiUrl: `${origin}/__clerk/api`,
    jwtKey: app.emulator.key.publicKeyPem,
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
  res.type("html").send(
    clerkJsPage({
      major: "5",
      publishableKey: app.publishableKey,
      proxyUrl: `${origin}/__clerk`,
      body: `<p id="server-user">${userId}</p>`,
    }),
  );
}

const app = browserAppForTests({
  emulator: { development: true },
  // The app's page: its server reads the browser's cookies with @clerk/backend, in development.
  routes: (express) => express.get("/", (req, res, next) => void appPage(req, res).catch(next)),
});

type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  user: { id: string } | null | undefined;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
};
type ClerkWindow = { Clerk?: ClerkJs };

it("clerk-js 5 signs in on a development instance through its dev browser, and stays signed in across a reload", async () => {
  const { origin } = app;
  await app.inFreshBrowser(async (page, context) => {
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
  });
}, 60_000);
