import AxeBuilder from "@axe-core/playwright";
import type { BrowserContext, Page } from "@playwright/test";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";
import { CLERK_PAGES, ROUTES } from "../support/routes";

// axe-core, WCAG 2.2 A and AA and its best practices, on every page: light and dark, desktop and
// phone, with JavaScript on and off (the two projects).
// best-practice adds landmarks, one h1 per page and the like.
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/**
 * What a browser without JavaScript shows: each document as served, its
 * scripts removed and its <noscript> content shown. axe itself needs
 * JavaScript (its timers do not run in a page where scripts are off), so it
 * runs in a JavaScript page that holds exactly that markup.
 */
async function showAsWithoutJavaScript(context: BrowserContext) {
  await context.route(
    (url) => !/\.[a-z0-9]+$/i.test(url.pathname),
    async (route) => {
      if (route.request().resourceType() !== "document") return route.continue();
      const response = await route.fetch();
      const html = (await response.text())
        .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
        .replace(/<\/?noscript>/gi, "");
      return route.fulfill({ response, body: html });
    },
  );
}

async function violations(page: Page, path: string, javaScript: boolean): Promise<string[]> {
  await page.goto(path);
  if (javaScript && CLERK_PAGES.test(path)) {
    await expect(page.locator(".cl-rootBox").first()).toBeVisible({ timeout: 15_000 });
  }
  // The markup under test is the right one: hydrated menus with JavaScript, their fallbacks without.
  await expect(page.getByTestId(javaScript ? "theme-menu-trigger" : "theme-menu-fallback")).toBeAttached();
  const results = await new AxeBuilder({ page })
    .withTags(TAGS)
    // By default AxeBuilder checks each frame apart and merges their results in a new blank page,
    // with a second copy of axe (seconds a page on two busy cores). A page of one frame is checked
    // the same by axe.run in the page itself; a page with frames still takes the default.
    .setLegacyMode(page.frames().length === 1)
    .analyze();
  return results.violations.map(
    (v) =>
      `${path}: ${v.id} (${v.impact}) ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary ?? ""}`).join(", ")}`,
  );
}

for (const viewport of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`no axe violations (${viewport.name}, ${theme})`, async ({ browser, baseURL }, info) => {
      test.setTimeout(120_000);
      const javaScript = info.project.name === "javascript-on";
      const guarded = await openGuardedContext(browser, { baseURL, viewport, javaScriptEnabled: true });
      const { context } = guarded;
      if (!javaScript) await showAsWithoutJavaScript(context);
      const page = await context.newPage();
      await context.request.post("/resources/theme", { form: { theme, redirectTo: "/" }, maxRedirects: 0 });
      const found: string[] = [];
      for (const path of ROUTES.signedOut) found.push(...(await violations(page, path, javaScript)));
      await signInAs(context, baseURL!, "ada@example.com");
      for (const path of ROUTES.signedIn) found.push(...(await violations(page, path, javaScript)));
      await guarded.close();
      expect(found).toEqual([]);
    });
  }
}
