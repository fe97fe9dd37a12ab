import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "@playwright/test";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";
import { CLERK_PAGES, ROUTES } from "../support/routes";

// The app loads a pruned copy of Radix Themes' CSS (scripts/build-dark-fallback.mjs
// keeps the components, utilities and prop classes its markup can give). A rule
// pruned that an element needs is a style missing from the page, so on every
// page, light and dark, phone and desktop, with JavaScript on and off (the two
// projects), and with the menus open: each rule of Radix's whole styles.css
// that matches an element of the page must be in the page's stylesheets, and
// each class an element has that Radix styles must be styled there too. Before
// a menu opens, in the one stylesheet that held up the page's first paint.

const RADIX_CSS = readFileSync(createRequire(import.meta.url).resolve("@radix-ui/themes/styles.css"), "utf8");

/**
 * Radix's selectors as Chromium's CSSOM writes them: read once per worker, in
 * the first check, since parsing the 700 kB sheet in every check cost a
 * second or two a page.
 */
let radixSelectors: string[] | undefined;

/**
 * What the page lacks of Radix's styles.css: its selectors that match an
 * element but are in none of the loaded stylesheets, and classes on elements
 * that Radix names and the loaded stylesheets do not. Both sides are read by
 * Chromium's CSSOM, so they are written the same way.
 */
async function missingRadixStyles(page: Page, firstPaint: boolean): Promise<string[]> {
  const found = await page.evaluate(
    (radix) => {
      /** A selector list's selectors, split at the commas outside parentheses. */
      const split = (list: string) => {
        const selectors = [""];
        let depth = 0;
        for (const char of list) {
          if (char === "(") depth++;
          else if (char === ")") depth--;
          if (char === "," && depth === 0) selectors.push("");
          else selectors[selectors.length - 1] += char;
        }
        return selectors.map((s) => s.trim());
      };
      const selectorsOf = (rules: Iterable<CSSRule>, into: Set<string>) => {
        for (const rule of rules) {
          if (rule instanceof CSSImportRule) {
            if (rule.styleSheet) selectorsOf(rule.styleSheet.cssRules, into);
            continue;
          }
          if (rule instanceof CSSStyleRule) for (const s of split(rule.selectorText)) into.add(s);
          if ("cssRules" in rule) selectorsOf((rule as CSSGroupingRule).cssRules, into);
        }
        return into;
      };
      const classesOf = (selectors: Set<string>) =>
        new Set(
          [...selectors].flatMap((s) =>
            [...s.matchAll(/\.((?:[\w-]|\\.)+)/g)].map(([, n]) => n!.replace(/\\(.)/g, "$1")),
          ),
        );
      const radixSelectors = new Set(radix.selectors);
      if (radix.css !== undefined) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(radix.css);
        selectorsOf(sheet.cssRules, radixSelectors);
      }
      // As first painted, only the stylesheet in <head> counts: after-paint.css, at the body's
      // end, holds up no paint, so nothing shown before it arrives may need it.
      const sheets = Array.from(document.styleSheets).filter(
        (sheet) => !radix.firstPaint || sheet.ownerNode?.parentNode === document.head,
      );
      const loaded = selectorsOf(
        sheets.flatMap((sheet) => Array.from(sheet.cssRules)),
        new Set(),
      );
      const missing: string[] = [];
      for (const selector of radixSelectors) {
        if (loaded.has(selector)) continue;
        // A pseudo-element (::before, ::placeholder) is styled on its element.
        const element = selector.replace(/::[\w-]+(?:\([^)]*\))?/g, "");
        let matches = false;
        try {
          matches = document.querySelector(element || "*") !== null;
        } catch {
          // a selector querySelector does not take (a vendor pseudo-class): not checked
        }
        if (matches) missing.push(`rule ${selector}`);
      }
      const radixClasses = classesOf(radixSelectors);
      const loadedClasses = classesOf(loaded);
      const onPage = new Set(Array.from(document.querySelectorAll("[class]")).flatMap((e) => Array.from(e.classList)));
      for (const name of onPage) if (radixClasses.has(name) && !loadedClasses.has(name)) missing.push(`class ${name}`);
      return { missing, radixSelectors: radix.css === undefined ? [] : [...radixSelectors] };
    },
    {
      firstPaint,
      selectors: radixSelectors ?? [],
      css: radixSelectors ? undefined : RADIX_CSS,
    },
  );
  radixSelectors ??= found.radixSelectors;
  return found.missing;
}

/** The menus a page has open, one at a time: Radix's dropdowns and dialog, with what they render. */
const MENU_TRIGGERS = ["theme-menu-trigger", "user-menu-trigger", "org-switcher-trigger", "mobile-menu-trigger"];

async function missingOn(page: Page, path: string, javaScript: boolean): Promise<string[]> {
  await page.goto(path);
  if (javaScript && CLERK_PAGES.test(path)) {
    await expect(page.locator(".cl-rootBox").first()).toBeVisible({ timeout: 15_000 });
  }
  // The page as first painted (with JavaScript, also once hydrated): what it shows must be in the one
  // stylesheet that held up its paint.
  const missing = (await missingRadixStyles(page, true)).map((m) => `${path}: ${m}`);
  if (!javaScript) return missing;
  // The Radix menus replace their fallbacks once the page has hydrated.
  await expect(
    page.getByTestId("theme-menu-trigger").or(page.getByTestId("mobile-menu-trigger")).filter({ visible: true }),
  ).toBeVisible();
  for (const testId of MENU_TRIGGERS) {
    const trigger = page.getByTestId(testId);
    if (!(await trigger.isVisible())) continue;
    await trigger.click();
    await expect(page.locator("[role=menu], [role=dialog]").first()).toBeVisible();
    missing.push(...(await missingRadixStyles(page, false)).map((m) => `${path} (${testId} open): ${m}`));
    await page.keyboard.press("Escape");
    await expect(page.locator("[role=menu], [role=dialog]")).toHaveCount(0);
  }
  return missing;
}

// Without JavaScript the markup does not depend on the width (the server never knows it, and no
// menu opens), so a phone's pages match the desktop's rules: the phone runs with JavaScript only (@js).
for (const viewport of [
  { name: "desktop", width: 1280, height: 800, tag: "" },
  { name: "phone", width: 390, height: 844, tag: " @js" },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`every Radix rule a page needs is loaded (${viewport.name}, ${theme})${viewport.tag}`, async ({
      browser,
      baseURL,
    }, info) => {
      test.setTimeout(180_000);
      const javaScript = info.project.name === "javascript-on";
      const { width, height } = viewport;
      const guarded = await openGuardedContext(browser, {
        baseURL,
        viewport: { width, height },
        javaScriptEnabled: javaScript,
      });
      const { context } = guarded;
      const page = await context.newPage();
      await context.request.post("/resources/theme", { form: { theme, redirectTo: "/" }, maxRedirects: 0 });
      const missing: string[] = [];
      for (const path of ROUTES.signedOut) missing.push(...(await missingOn(page, path, javaScript)));
      await signInAs(context, baseURL!, "ada@example.com");
      for (const path of ROUTES.signedIn) missing.push(...(await missingOn(page, path, javaScript)));
      await guarded.close();
      expect(missing).toEqual([]);
    });
  }
}
