import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { startFixture, type FixtureLine } from "./fixture-app";
import { loopbackOnlyContext } from "./guard";
import { ROOT } from "./server";

/**
 * The phone-number and username tests' view of a running fixture
 * (tests/support/fixture-app.ts): its app, its Chromium, and the emulator's
 * Backend API with the instance's secret key.
 */
export type FixtureApp = {
  appUrl: string;
  browser: Browser;
  /** The emulator's Backend API with the instance's secret key. */
  bapi: (method: string, path: string, body?: Record<string, unknown>) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
  stop(): Promise<void>;
};

export async function startFixtureApp(line: FixtureLine): Promise<FixtureApp> {
  const fixture = await startFixture(line);
  const { CLERK_API_URL: apiUrl, CLERK_SECRET_KEY: secretKey } = fixture.env;
  return {
    appUrl: fixture.appUrl,
    browser: fixture.browser,
    async bapi(method, path, body) {
      const res = await fetch(`${apiUrl}/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as unknown };
    },
    stop: fixture.stop,
  };
}

/** `<UserProfile/>` as it is, for a person to look at (not compared): test-results/fixture-phone/<line>-user-profile.png. */
export async function screenshot(page: Page, line: FixtureLine): Promise<void> {
  await page.screenshot({
    path: join(ROOT, "test-results/fixture-phone", `${line}-user-profile.png`),
    animations: "disabled",
  });
}

/** A browser context whose requests beyond loopback are refused, and listed in `offLoopback`. */
export async function loopbackContext(browser: Browser): Promise<{ context: BrowserContext; offLoopback: string[] }> {
  const offLoopback: string[] = [];
  return { context: await loopbackOnlyContext(browser, offLoopback), offLoopback };
}
