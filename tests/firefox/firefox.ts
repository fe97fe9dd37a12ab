import puppeteer, { type Browser, type BrowserContext, type CookieData, type Page } from "puppeteer-core";
import { expect } from "vitest";
import { isLoopbackUrl } from "../support/guard";
import type { RunningServer } from "../support/server";

/** Debian's Firefox ESR, driven over WebDriver BiDi (it sends no colour-scheme client hint). */
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";

export type Scheme = "light" | "dark";
export type Preference = Scheme | "system";

// Radix Themes' page backgrounds (slate gray) on the theme root, as in tests/e2e/no-flash.spec.ts.
export const BACKGROUND = { light: "rgb(255, 255, 255)", dark: "rgb(17, 17, 19)" } as const;

/**
 * A Firefox with its own profile: the OS colour scheme and JavaScript are
 * profile preferences (WebDriver BiDi in Firefox 140 can set neither per
 * page), so each combination is a browser of its own.
 */
export async function launchFirefox({ os, javaScript }: { os: Scheme; javaScript: boolean }): Promise<Browser> {
  return puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: {
      "ui.systemUsesDarkTheme": os === "dark" ? 1 : 0,
      "javascript.enabled": javaScript,
      // Anything not on loopback goes to a proxy that is not there (the
      // discard port), so the browser itself cannot reach beyond the machine;
      // pages' requests are also recorded and checked (openPage).
      "network.proxy.type": 1,
      "network.proxy.http": "127.0.0.1",
      "network.proxy.http_port": 9,
      "network.proxy.ssl": "127.0.0.1",
      "network.proxy.ssl_port": 9,
      "network.proxy.no_proxies_on": "localhost, 127.0.0.1",
    },
  });
}

/** Closes a browser and makes sure its whole process group is gone, even when closing hangs. */
export async function closeFirefox(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const pid = browser.process()?.pid;
  try {
    await Promise.race([browser.close(), new Promise((done) => setTimeout(done, 10_000))]);
  } catch {
    // killed below
  } finally {
    if (pid) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

const CSP_MARK = "csp-violation:";

export type GuardedPage = {
  page: Page;
  context: BrowserContext;
  /** Closes the page's context; fails the test on a request beyond loopback or a CSP violation. */
  close(): Promise<void>;
};

/**
 * A page in a fresh browser context (its own cookies), under the rules of
 * the Playwright suite: loopback only, and no Content-Security-Policy
 * violation (reported by the page's scripts, so with JavaScript on).
 */
export async function openPage(browser: Browser, cookies: CookieData[] = []): Promise<GuardedPage> {
  const context = await browser.createBrowserContext();
  if (cookies.length > 0) await context.setCookie(...cookies);
  const page = await context.newPage();
  const offLoopback: string[] = [];
  const violations: string[] = [];
  page.on("request", (request) => {
    if (!isLoopbackUrl(request.url())) offLoopback.push(request.url());
  });
  page.on("console", (message) => {
    if (message.text().startsWith(CSP_MARK)) violations.push(message.text().slice(CSP_MARK.length));
  });
  await page.evaluateOnNewDocument((mark) => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`${mark}${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  }, CSP_MARK);
  return {
    page,
    context,
    async close() {
      await context.close();
      expect(violations, "Content-Security-Policy violations").toEqual([]);
      expect(offLoopback, "browser requests beyond loopback").toEqual([]);
    },
  };
}

/**
 * The signed `theme` cookie the server stores for a preference, from a
 * same-origin form POST (the app refuses writes from other origins).
 */
export async function storedThemeCookie(server: RunningServer, theme: Preference): Promise<CookieData> {
  const res = await fetch(`${server.origin}/resources/theme`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin },
    body: new URLSearchParams({ theme, redirectTo: "/" }).toString(),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  const value = /^theme=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!value) throw new Error(`no theme cookie in ${res.headers.get("set-cookie")}`);
  return { name: "theme", value, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" };
}

export type Frame = { cls: string; bg: string };

/**
 * Records the first animation frame Firefox can paint: it runs animation
 * frames while the stylesheets are still loading (and paints nothing of the
 * page then), so the frame that counts is the first one with every stylesheet
 * that applies loaded. Call before `goto`.
 */
export async function recordFirstStyledFrame(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const sheetsIn = () =>
      [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].every(
        (link) => link.sheet !== null || !matchMedia(link.media || "all").matches,
      );
    const frame = () => {
      const root = document.getElementById("theme-root");
      if (root && sheetsIn()) {
        (window as unknown as { __firstStyledFrame: Frame }).__firstStyledFrame = {
          cls: document.documentElement.className,
          bg: getComputedStyle(root).backgroundColor,
        };
      } else {
        requestAnimationFrame(frame);
      }
    };
    requestAnimationFrame(frame);
  });
}

export async function firstStyledFrame(page: Page): Promise<Frame | undefined> {
  return page.evaluate(() => (window as unknown as { __firstStyledFrame?: Frame }).__firstStyledFrame);
}

/** What the loaded page shows now: the <html> class and the theme root's background. */
export async function shownTheme(page: Page): Promise<Frame> {
  return {
    cls: await page.$eval("html", (html) => html.className),
    bg: await page.$eval("#theme-root", (root) => getComputedStyle(root).backgroundColor),
  };
}

/**
 * How every element is painted (colours, borders, shadows, colour scheme), in
 * document order, leaving out the theme menus (their icon and pressed
 * button show the stored choice).
 */
export async function lookOf(page: Page): Promise<string[]> {
  // page.$$eval waits on the page's event loop, which does not run with JavaScript off.
  return page.evaluate(() =>
    [...document.querySelectorAll("html, body, body *")]
      .filter((el) => !el.closest('[data-testid^="theme-menu"], button[name="theme"]'))
      .map((el) => {
        const s = getComputedStyle(el);
        const paint = [s.color, s.backgroundColor, s.borderTopColor, s.borderBottomColor, s.boxShadow];
        return [el.tagName.toLowerCase(), ...paint, s.outlineColor, s.colorScheme, s.fill, s.stroke].join(" | ");
      }),
  );
}

/** The text of the first element matching `selector`, or null while there is none (for expect.poll). */
export async function textOf(page: Page, selector: string): Promise<string | null> {
  return page.$eval(selector, (el) => el.textContent).catch(() => null);
}

/**
 * A real mouse click in the middle of an element already on the page.
 * Puppeteer's page.click and waitForSelector wait on callbacks in the page
 * (animation frames, observers), which never come with JavaScript off.
 */
export async function clickAt(page: Page, selector: string): Promise<void> {
  const element = await page.$(selector);
  if (!element) throw new Error(`no ${selector}`);
  await element.evaluate((el) => el.scrollIntoView({ block: "center" }));
  const box = await element.boundingBox();
  if (!box) throw new Error(`${selector} is not shown`);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}
