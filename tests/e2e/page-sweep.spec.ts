import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";
import { CLERK_PAGES, ROUTES } from "../support/routes";

// Every page of the product, visited once per configuration, and on that one visit:
// - axe-core (WCAG 2.2 A and AA and its best practices) reports no violation;
// - every rule of Radix's styles.css that an element matches is loaded: as first painted, in the
//   one stylesheet that held up the paint, and with each menu open, in what is loaded by then;
// - nothing scrolls sideways.
// The configurations: desktop and phone, light and dark, with JavaScript on and off (the two
// projects). Three narrower or wider widths are checked for sideways scrolling alone. One visit
// serves the three checks because loading a page and waiting for it was most of what each cost.

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/**
 * What a browser without JavaScript shows: each document as served, its
 * scripts removed and its <noscript> content shown. axe itself needs
 * JavaScript (its timers do not run in a page where scripts are off), so the
 * checks run in a JavaScript page that holds exactly that markup. Such a page
 * never asks for after-paint.css, as a page without JavaScript does not.
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

/** The page's axe violations, one line each. */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(TAGS)
    // By default AxeBuilder checks each frame apart and merges their results in a new blank page,
    // with a second copy of axe (seconds a page on two busy cores). A page of one frame is checked
    // the same by axe.run in the page itself; a page with frames still takes the default.
    .setLegacyMode(page.frames().length === 1)
    .analyze();
  return results.violations.map(
    (v) =>
      `axe ${v.id} (${v.impact}) ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary ?? ""}`).join(", ")}`,
  );
}

// The app loads a pruned copy of Radix Themes' CSS (scripts/build-dark-fallback.mjs keeps the
// components, utilities and prop classes its markup can give). A rule pruned that an element
// needs is a style missing from the page.
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
 * Chromium's CSSOM, so they are written the same way. `firstPaint`: only the
 * stylesheet in <head> counts.
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

/** "scrolls sideways" when the document is wider than the window. */
async function overflow(page: Page): Promise<string[]> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  return scrollWidth > innerWidth ? [`scrolls sideways: ${scrollWidth} > ${innerWidth}`] : [];
}

/** Loads a page and waits until it is the markup under test: Clerk's component drawn, the menus hydrated or their fallbacks. */
async function open(page: Page, path: string, javaScript: boolean) {
  await page.goto(path);
  if (javaScript && CLERK_PAGES.test(path)) {
    await expect(page.locator(".cl-rootBox").first()).toBeVisible({ timeout: 15_000 });
  }
  await expect(page.getByTestId(javaScript ? "theme-menu-trigger" : "theme-menu-fallback")).toBeAttached();
}

/** Every check on one visit: axe, the first paint's styles, the width, then (with JavaScript) each menu's styles. */
async function problemsOn(page: Page, path: string, javaScript: boolean): Promise<string[]> {
  await open(page, path, javaScript);
  const problems = [
    ...(await missingRadixStyles(page, true)),
    ...(await axeViolations(page)),
    ...(await overflow(page)),
  ];
  if (javaScript) {
    // The Radix menus replace their fallbacks once the page has hydrated.
    await expect(
      page.getByTestId("theme-menu-trigger").or(page.getByTestId("mobile-menu-trigger")).filter({ visible: true }),
    ).toBeVisible();
    for (const testId of MENU_TRIGGERS) {
      const trigger = page.getByTestId(testId);
      if (!(await trigger.isVisible())) continue;
      await trigger.click();
      await expect(page.locator("[role=menu], [role=dialog]").first()).toBeVisible();
      problems.push(...(await missingRadixStyles(page, false)).map((m) => `(${testId} open) ${m}`));
      await page.keyboard.press("Escape");
      await expect(page.locator("[role=menu], [role=dialog]")).toHaveCount(0);
    }
  }
  return problems.map((problem) => `${path}: ${problem}`);
}

/** The width check alone, on one visit. */
async function overflowOn(page: Page, path: string, javaScript: boolean): Promise<string[]> {
  await open(page, path, javaScript);
  return (await overflow(page)).map((problem) => `${path}: ${problem}`);
}

type Sweep = {
  browser: Browser;
  baseURL: string;
  javaScript: boolean;
  viewport: { width: number; height: number };
  theme: "light" | "dark";
};

/** What `check` finds on each page, signed out, then signed in as Ada, in a guarded context of that viewport and theme. */
async function sweep(
  { browser, baseURL, javaScript, viewport, theme }: Sweep,
  check: (page: Page, path: string, javaScript: boolean) => Promise<string[]>,
) {
  const guarded = await openGuardedContext(browser, { baseURL, viewport, javaScriptEnabled: true });
  const { context } = guarded;
  if (!javaScript) await showAsWithoutJavaScript(context);
  const page = await context.newPage();
  await context.request.post("/resources/theme", { form: { theme, redirectTo: "/" }, maxRedirects: 0 });
  const problems: string[] = [];
  for (const path of ROUTES.signedOut) problems.push(...(await check(page, path, javaScript)));
  await signInAs(context, baseURL, "ada@example.com");
  for (const path of ROUTES.signedIn) problems.push(...(await check(page, path, javaScript)));
  await guarded.close();
  return problems;
}

for (const { name, ...viewport } of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`every page: axe, the styles it needs, its width (${name}, ${theme})`, async ({ browser, baseURL }, info) => {
      test.setTimeout(240_000);
      const javaScript = info.project.name === "javascript-on";
      expect(await sweep({ browser, baseURL: baseURL!, javaScript, viewport, theme }, problemsOn)).toEqual([]);
    });
  }
}

for (const [width, themes] of [
  [320, ["light", "dark"]],
  [768, ["light"]],
] as const) {
  for (const theme of themes) {
    test(`nothing scrolls sideways at ${width} px (${theme})`, async ({ browser, baseURL }, info) => {
      const javaScript = info.project.name === "javascript-on";
      const viewport = { width, height: 800 };
      expect(await sweep({ browser, baseURL: baseURL!, javaScript, viewport, theme }, overflowOn)).toEqual([]);
    });
  }
}
