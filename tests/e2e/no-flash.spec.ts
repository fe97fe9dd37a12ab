import type { Browser, PlaywrightWorkerArgs } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { expect, openGuardedContext, test } from "./fixtures";

// Radix Themes' page backgrounds (slate gray) on the theme root.
const BACKGROUND = { light: "rgb(255, 255, 255)", dark: "rgb(17, 17, 19)" } as const;

type Os = "light" | "dark";
type Preference = "light" | "dark" | "system";

const browsers = new Map<Os, Browser>();

// Playwright's colorScheme emulation does not reach the client hint Chromium
// sends with the document request; --force-dark-mode does, and media queries too.
async function browserFor(os: Os, playwright: PlaywrightWorkerArgs["playwright"]): Promise<Browser> {
  let browser = browsers.get(os);
  if (!browser) {
    browser = await playwright.chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: os === "dark" ? [...CHROMIUM_ARGS, "--force-dark-mode"] : CHROMIUM_ARGS,
    });
    browsers.set(os, browser);
  }
  return browser;
}

test.afterAll(async () => {
  for (const browser of browsers.values()) await browser.close();
  browsers.clear();
});

for (const preference of ["light", "dark", "system"] as Preference[]) {
  for (const os of ["light", "dark"] as Os[]) {
    const expected = preference === "system" ? os : preference;

    test(`first paint is ${expected} for preference ${preference} on a ${os} OS`, async ({
      playwright,
      baseURL,
    }, testInfo) => {
      const javaScriptEnabled = testInfo.project.name === "javascript-on";
      const browser = await browserFor(os, playwright);
      const guarded = await openGuardedContext(browser, { baseURL, javaScriptEnabled, colorScheme: null });
      const { context } = guarded;
      try {
        if (preference !== "system") {
          const res = await context.request.post("/resources/theme", {
            form: { theme: preference, redirectTo: "/" },
            maxRedirects: 0,
          });
          expect(res.status()).toBe(303);
        }
        const page = await context.newPage();
        // Runs before any page script: the first animation frame comes before the first paint.
        await page.addInitScript(() => {
          requestAnimationFrame(() => {
            const w = window as unknown as { __firstFrame: { cls: string; bg: string } };
            w.__firstFrame = {
              cls: document.documentElement.className,
              bg: getComputedStyle(document.getElementById("theme-root")!).backgroundColor,
            };
          });
        });
        const response = await page.goto("/");
        const htmlTag = /<html[^>]*>/.exec(await response!.text())?.[0] ?? "";
        const servedClass = /class="([^"]*)"/.exec(htmlTag)?.[1] ?? "";

        // Chromium sends the hint, so the server itself can paint every case right.
        expect(servedClass).toBe(expected);
        expect(
          await page.evaluate(() => getComputedStyle(document.getElementById("theme-root")!).backgroundColor),
        ).toBe(BACKGROUND[expected]);
        // The painted scheme comes first in remix-themes' meta.
        await expect(page.locator('meta[name="color-scheme"]')).toHaveAttribute(
          "content",
          new RegExp(`^${expected}\\b`),
        );
        if (javaScriptEnabled) {
          const first = await page.evaluate(
            () => (window as unknown as { __firstFrame: { cls: string; bg: string } }).__firstFrame,
          );
          expect(first).toEqual({ cls: expected, bg: BACKGROUND[expected] });
          // Hydration keeps it.
          await page.waitForFunction(() => document.querySelector('[data-testid="theme-menu-trigger"]'));
          await expect(page.locator("html")).toHaveClass(expected);
        }
      } finally {
        await guarded.close();
      }
    });
  }
}

test("without the client hint, the pre-paint script applies the OS theme before the first frame @js", async ({
  browser,
  baseURL,
}) => {
  const guarded = await openGuardedContext(browser, { baseURL, colorScheme: "dark" });
  const { context } = guarded;
  // Fetch the document as a browser without client hints would (Chromium adds
  // the hint below the interception layer, so refetch it without).
  await context.route(/\/$/, async (route) => {
    const headers = { ...route.request().headers() };
    delete headers["sec-ch-prefers-color-scheme"];
    return route.fulfill({ response: await route.fetch({ headers }) });
  });
  const page = await context.newPage();
  await page.addInitScript(() => {
    requestAnimationFrame(() => {
      (window as unknown as { __cls: string }).__cls = document.documentElement.className;
    });
  });
  const response = await page.goto("/");
  expect(await response!.text()).not.toMatch(/<html[^>]*class=/);
  expect(await page.evaluate(() => (window as unknown as { __cls: string }).__cls)).toBe("dark");
  await guarded.close();
});
