import type { Page } from "@playwright/test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { patchInstance } from "../../testing";
import { browserAppForTests, loadClerkJs } from "../support/browser-app";

// Issue 68: the real clerk-js 5 in Chromium against a development instance with social connections
// on (`user_settings.social`). Its <SignIn/> and <SignUp/> show one button per connection; clicking Google sends
// the browser to Google's authorize URL (answered here by a stand-in page: the browser never leaves
// loopback). clerk-js's first `GET /v1/client` on its new dev browser gets a client, and after a
// password sign-in the client's `lastAuthenticationStrategy` is `password`, which <SignIn/> shows
// as its "Last used" badge once the person has signed out.
const app = browserAppForTests({ emulator: { development: true }, body: '<div id="sign-in"></div>' });

const SOCIAL = {
  user_settings: {
    social: { oauth_google: { enabled: true }, oauth_github: { enabled: true }, oauth_microsoft: { enabled: true } },
  },
};

beforeAll(async () => {
  expect((await patchInstance(app.origin, SOCIAL)).status).toBe(200);
});

type ClerkJs = {
  load(): Promise<void>;
  mountSignIn(node: HTMLElement): void;
  mountSignUp(node: HTMLElement): void;
  setActive(params: { session: string }): Promise<void>;
  signOut(): Promise<void>;
  client: {
    id: string | undefined;
    lastAuthenticationStrategy: string | null;
    signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> };
  };
};
type ClerkWindow = { Clerk?: ClerkJs };

/** Providers' pages and icons, answered on loopback's behalf (the page would otherwise go to the internet). */
async function standInProviders(page: Page): Promise<string[]> {
  const visited: string[] = [];
  await page.route("https://img.clerk.com/**", (route) =>
    route.fulfill({ contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }),
  );
  await page.route("https://accounts.google.com/**", (route) => {
    visited.push(route.request().url());
    return route.fulfill({ contentType: "text/html", body: "<p id='provider'>Google's consent screen</p>" });
  });
  return visited;
}

const mountSignIn = (page: Page) =>
  page.evaluate(() => {
    const Clerk = (window as unknown as ClerkWindow).Clerk!;
    Clerk.mountSignIn(document.getElementById("sign-in")!);
  });

describe("clerk-js 5 in Chromium, social connections on a development instance", () => {
  it("<SignIn/> shows a button per connection, and Google's sends the browser to Google's authorize URL", async () => {
    await app.inFreshBrowser(async (page) => {
      const visited = await standInProviders(page);
      await page.goto(`${app.origin}/5`);
      await loadClerkJs(page);
      // The new dev browser's first GET /v1/client gave clerk-js a client.
      expect(await page.evaluate(() => (window as unknown as ClerkWindow).Clerk!.client.id)).toMatch(/^client_/);
      await mountSignIn(page);
      const buttons = page.locator(".cl-socialButtons button");
      await expect.poll(() => buttons.count()).toBe(3);
      await page.locator(".cl-socialButtons button[class*='__google']").click();
      await page.waitForURL(/^https:\/\/accounts\.google\.com\//);
      expect(await page.textContent("#provider")).toBe("Google's consent screen");
      const authorize = new URL(visited[0]!);
      expect(authorize.pathname).toBe("/o/oauth2/auth");
      expect(authorize.searchParams.get("redirect_uri")).toBe(`${app.origin}/__clerk/v1/oauth_callback`);
    });
  });

  it("<SignUp/>'s Google button sends the browser to Google's authorize URL too", async () => {
    await app.inFreshBrowser(async (page) => {
      const visited = await standInProviders(page);
      await page.goto(`${app.origin}/5`);
      await loadClerkJs(page);
      await page.evaluate(() => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        Clerk.mountSignUp(document.getElementById("sign-in")!);
      });
      await expect.poll(() => page.locator(".cl-socialButtons button").count()).toBe(3);
      await page.locator(".cl-socialButtons button[class*='__google']").click();
      await page.waitForURL(/^https:\/\/accounts\.google\.com\//);
      expect(new URL(visited[0]!).searchParams.get("scope")).toBe("openid email profile");
    });
  });

  it("a password sign-in makes the client's lastAuthenticationStrategy password, read back after signing out", async () => {
    await app.inFreshBrowser(async (page) => {
      await standInProviders(page);
      await page.goto(`${app.origin}/5`);
      await loadClerkJs(page);
      const lastUsed = () =>
        page.evaluate(() => (window as unknown as ClerkWindow).Clerk!.client.lastAuthenticationStrategy);
      expect(await lastUsed()).toBeNull();
      await page.evaluate(async (password) => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        const signIn = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
        await Clerk.setActive({ session: signIn.createdSessionId });
      }, DEMO_PASSWORD);
      expect(await lastUsed()).toBe("password");
      // Signed out, clerk-js goes to the instance's after-sign-out URL ("/", clerk-js 5 again): the same client.
      await Promise.all([
        page.waitForURL(`${app.origin}/`),
        page.evaluate(() => (window as unknown as ClerkWindow).Clerk!.signOut()),
      ]);
      await loadClerkJs(page);
      expect(await lastUsed()).toBe("password");
      // This instance's identifier field toggles to a phone number, so clerk-js badges no field for a
      // password, as Clerk's spec expects of a toggleable identifier.
      await mountSignIn(page);
      await expect.poll(() => page.locator(".cl-socialButtons button").count()).toBe(3);
      expect(await page.locator(".cl-lastAuthenticationStrategyBadge").count()).toBe(0);
    });
  });

  it("as Clerk's spec does: GET /v1/client's answer rewritten to oauth_google puts Google first, badged", async () => {
    await app.inFreshBrowser(async (page) => {
      await standInProviders(page);
      // Clerk's last-authentication-strategy spec rewrites the answer this way, reading `response` unchecked.
      await page.route("**/v1/client?**", async (route) => {
        const response = await route.fetch();
        const json = await response.json();
        await route.fulfill({
          response,
          json: { ...json, response: { ...json.response, last_authentication_strategy: "oauth_google" } },
        });
      });
      await page.goto(`${app.origin}/5`);
      await loadClerkJs(page);
      await mountSignIn(page);
      const rows = page.locator(".cl-socialButtons");
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.first().locator("button[class*='__google']").count()).toBe(1);
      expect(await rows.last().locator("button").count()).toBe(2);
      expect(await page.locator(".cl-lastAuthenticationStrategyBadge").count()).toBe(1);
    });
  });
});
