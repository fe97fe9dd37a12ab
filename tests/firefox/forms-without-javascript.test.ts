import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, newPerson } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";
import { emulatorSession } from "../support/session";
import { BACKGROUND, clickAt, closeFirefox, launchFirefox, openPage, shownTheme, textOf } from "./firefox";

/** Clicks a submit button and waits for the document the form's answer leads to. */
async function submitWith(page: Page, button: string) {
  await Promise.all([page.waitForNavigation(), clickAt(page, button)]);
}

describe("Firefox without JavaScript, on a dark OS: forms", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    const launching = launchFirefox({ os: "dark", javaScript: false });
    try {
      server = await startServer({ LOG_LEVEL: "silent" });
    } finally {
      // Kept for afterAll even when the server did not start.
      browser = await launching;
    }
  });

  afterAll(async () => {
    await closeFirefox(browser);
    await server?.stop();
  });

  it("the theme menu's form stores a choice, and System goes back to the OS", async () => {
    const guarded = await openPage(browser);
    const { page } = guarded;
    try {
      await page.goto(`${server.origin}/`);
      expect(await shownTheme(page)).toEqual({ cls: "", bg: BACKGROUND.dark });

      await clickAt(page, '[data-testid="theme-menu-fallback"] summary');
      await submitWith(page, '[data-testid="theme-menu-fallback"] button[value="light"]');
      expect(new URL(page.url()).pathname).toBe("/");
      expect(await shownTheme(page)).toEqual({ cls: "light", bg: BACKGROUND.light });
      expect(await page.$eval('button[value="light"]', (b) => b.getAttribute("aria-pressed"))).toBe("true");

      await clickAt(page, '[data-testid="theme-menu-fallback"] summary');
      await submitWith(page, '[data-testid="theme-menu-fallback"] button[value="system"]');
      expect(await shownTheme(page)).toEqual({ cls: "", bg: BACKGROUND.dark });
    } finally {
      await guarded.close();
    }
  });

  it("creates an organization with the plain form", async () => {
    const person = await newPerson(backendApi(server.origin, server.dataDir), "nojs");
    const session = await emulatorSession(server.origin, person.email);
    const guarded = await openPage(
      browser,
      session.cookies.map((c) => ({ ...c, domain: "127.0.0.1" })),
    );
    const { page } = guarded;
    try {
      await page.goto(`${server.origin}/orgs/new`);
      const name = `Firefox Plain ${Date.now().toString(36)}`;
      await page.type('input[name="name"]', name);
      await submitWith(page, 'form[aria-label="Create an organization"] button[type="submit"]');
      expect(new URL(page.url()).pathname).toMatch(/^\/orgs\/firefox-plain-/);
      expect(await textOf(page, '[data-testid="org-name"]')).toBe(name);
      expect(await shownTheme(page)).toEqual({ cls: "", bg: BACKGROUND.dark });
    } finally {
      await guarded.close();
    }
  });
});
