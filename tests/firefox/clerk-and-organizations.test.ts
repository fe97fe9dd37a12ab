import type { Browser, CookieData, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, newPerson, TEAM_PASSWORD } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";
import { emulatorSession } from "../support/session";
import { closeFirefox, launchFirefox, openPage, textOf } from "./firefox";

const activeOrganization = (page: Page) =>
  page.evaluate(
    () => (window as unknown as { Clerk?: { organization?: { id: string } | null } }).Clerk?.organization?.id,
  );

const attribute = (page: Page, selector: string, name: string) =>
  page.$eval(selector, (el, n) => el.getAttribute(n), name).catch(() => null);

/**
 * Types `value` into Clerk's `field` and clicks Continue until its next step
 * shows. Clerk re-renders its form as it loads, so the button found can be
 * gone by the time it is clicked, a click can land before the form has taken
 * the typed text, and a re-rendered field can lose it: each try types it
 * again if the field no longer holds it.
 */
async function continueTo(page: Page, field: string, value: string, next: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const typed = await page.$eval(field, (input) => (input as HTMLInputElement).value).catch(() => null);
    if (typed !== null && typed !== value) {
      await page.$eval(field, (input) => ((input as HTMLInputElement).value = ""));
      await page.type(field, value);
    }
    await page.click(".cl-formButtonPrimary").catch(() => undefined);
    try {
      await page.waitForSelector(next, { visible: true, timeout: 5_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

describe("Firefox with JavaScript: Clerk and organizations", () => {
  let server: RunningServer;
  let browser: Browser;
  let person: { id: string; email: string };
  const orgs: { id: string; slug: string; name: string }[] = [];

  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: "silent" });
    const launching = launchFirefox({ os: "light", javaScript: true });
    try {
      const bapi = backendApi(server.origin, server.dataDir);
      person = await newPerson(bapi, "firefox");
      for (const name of ["Firefox Alpha", "Firefox Beta"]) {
        const org = await bapi("POST", "/v1/organizations", { name, created_by: person.id });
        expect(org.status).toBe(200);
        orgs.push({ id: org.body.id as string, slug: org.body.slug as string, name });
      }
    } finally {
      browser = await launching;
    }
  });

  afterAll(async () => {
    await closeFirefox(browser);
    await server?.stop();
  });

  it("signs in through Clerk's own form (the real clerk-js against the emulator)", async () => {
    const guarded = await openPage(browser);
    const { page } = guarded;
    // The document preloads clerk-js (app/components/clerk-frame.tsx); Clerk's loader must use that copy.
    const clerkJsRequests: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/clerk.browser.js")) clerkJsRequests.push(request.url());
    });
    try {
      await page.goto(`${server.origin}/sign-in`);
      await page.waitForSelector('input[name="identifier"]', { visible: true });
      expect(clerkJsRequests).toHaveLength(1);
      expect(
        await page.evaluate(
          () => performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/clerk.browser.js")).length,
        ),
      ).toBe(1);
      await continueTo(page, 'input[name="identifier"]', person.email, 'input[name="password"]');
      await continueTo(page, 'input[name="password"]', TEAM_PASSWORD, '[data-testid="user-menu-trigger"]');
      expect(await attribute(page, '[data-testid="user-menu-trigger"]', "aria-label")).toBe(
        "Account menu for Firefox Tester",
      );
      // Signed in for the server too: a fresh document load is rendered for the person.
      await page.reload();
      expect(await page.$('[aria-label="Account menu for Firefox Tester"]')).not.toBeNull();
    } finally {
      await guarded.close();
    }
  });

  it("switches organizations from the popover in the navigation bar, without a full reload", async () => {
    const [alpha, beta] = orgs as [(typeof orgs)[0], (typeof orgs)[0]];
    const session = await emulatorSession(server.origin, person.email, alpha.id);
    const cookies: CookieData[] = session.cookies.map((c) => ({ ...c, domain: "127.0.0.1" }));
    const guarded = await openPage(browser, cookies);
    const { page } = guarded;
    try {
      await page.goto(`${server.origin}/orgs/${alpha.slug}`);
      expect(await textOf(page, '[data-testid="org-name"]')).toBe(alpha.name);
      // Alpha is the session's active organization: nothing for clerk-js to do, so it is not loaded yet.
      expect(await activeOrganization(page)).toBeUndefined();
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

      await page.waitForSelector('[data-testid="org-switcher-trigger"]');
      await page.click('[data-testid="org-switcher-trigger"]');
      const choice = `[data-testid="org-switcher-panel"] a[href="/orgs/${beta.slug}"]`;
      await page.waitForSelector(choice, { visible: true });
      expect(await textOf(page, '[data-testid="org-switcher-panel"] [aria-current="true"]')).toContain(alpha.name);
      await page.click(choice);

      await expect.poll(() => page.evaluate(() => location.pathname), { timeout: 15_000 }).toBe(`/orgs/${beta.slug}`);
      await expect.poll(() => textOf(page, '[data-testid="org-name"]'), { timeout: 15_000 }).toBe(beta.name);
      await expect
        .poll(() => attribute(page, '[data-testid="org-switcher-trigger"]', "aria-label"))
        .toBe(`${beta.name}, switch organization`);
      await expect.poll(() => page.$('[data-testid="org-switcher-panel"]')).toBeNull();
      // Beta is not: clerk-js is loaded to make it active, and Clerk follows.
      await expect.poll(() => activeOrganization(page), { timeout: 15_000 }).toBe(beta.id);
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    } finally {
      await guarded.close();
    }
  });
});
