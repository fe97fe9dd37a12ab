import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { emulatorSession } from "../support/session";
import {
  BACKGROUND,
  closeFirefox,
  firstStyledFrame,
  launchFirefox,
  lookOf,
  openPage,
  recordFirstStyledFrame,
  shownTheme,
  storedThemeCookie,
  type Preference,
  type Scheme,
} from "./firefox";

const STORED: (Preference | "none")[] = ["light", "dark", "system", "none"];
const OS: Scheme[] = ["light", "dark"];

/**
 * The first paint for every stored preference (none, or light, dark, system)
 * on a light and a dark OS, in Firefox, which sends no colour-scheme hint:
 * for "system" and none the server cannot know the OS scheme and serves
 * <html> without a class, and the page must still paint the OS theme.
 */
export function describeThemeMatrix(javaScript: boolean) {
  describe(`Firefox, JavaScript ${javaScript ? "on" : "off"}: the first paint`, () => {
    let server: RunningServer;
    const browsers = new Map<Scheme, Browser>();
    const cookies = new Map<Preference, Awaited<ReturnType<typeof storedThemeCookie>>>();

    beforeAll(async () => {
      server = await startServer({ LOG_LEVEL: "silent" });
      for (const os of OS) browsers.set(os, await launchFirefox({ os, javaScript }));
      for (const theme of ["light", "dark", "system"] as const)
        cookies.set(theme, await storedThemeCookie(server, theme));
    });

    afterAll(async () => {
      for (const browser of browsers.values()) await closeFirefox(browser);
      await server?.stop();
    });

    for (const stored of STORED) {
      for (const os of OS) {
        const expected: Scheme = stored === "light" || stored === "dark" ? stored : os;
        const serverKnows = stored === "light" || stored === "dark";

        it(`is ${expected} with ${stored === "none" ? "no stored preference" : `preference ${stored}`} on a ${os} OS`, async () => {
          const cookie = stored === "none" ? [] : [cookies.get(stored)!];
          const guarded = await openPage(browsers.get(os)!, cookie);
          const { page } = guarded;
          try {
            if (javaScript) await recordFirstStyledFrame(page);
            await page.goto(`${server.origin}/`);

            if (javaScript) {
              // remix-themes' pre-paint script puts the OS theme on <html> when the server could not.
              expect(await firstStyledFrame(page)).toEqual({ cls: expected, bg: BACKGROUND[expected] });
              // Hydration keeps it.
              await page.waitForSelector('[data-testid="theme-menu-trigger"]');
              expect(await shownTheme(page)).toEqual({ cls: expected, bg: BACKGROUND[expected] });
            } else {
              // As served: a class when the server knew, else none, and the CSS follows the OS.
              expect(await shownTheme(page)).toEqual({ cls: serverKnows ? expected : "", bg: BACKGROUND[expected] });
            }

            const meta = await page.$eval('meta[name="color-scheme"]', (m) => m.getAttribute("content"));
            if (serverKnows || javaScript) {
              // The painted scheme first.
              expect(meta).toMatch(new RegExp(`^${expected}\\b`));
            } else {
              // Both, so Firefox takes the OS's for what the page does not style.
              expect(meta?.split(/\s+/).sort()).toEqual(["dark", "light"]);
            }
            const colorScheme = await page.$eval("html", (html) => getComputedStyle(html).colorScheme);
            if (expected === "dark") expect(colorScheme).toBe("dark");
            else expect(colorScheme).not.toContain("dark");
          } finally {
            await guarded.close();
          }
        });
      }
    }

    if (!javaScript) {
      it.each(["/", "/orgs/analytical-engines/members"])(
        "%s served without a theme class on a dark OS looks exactly as the dark theme",
        async (path) => {
          const session = await emulatorSession(server.origin, "ada@example.com");
          const signedIn = session.cookies.map((c) => ({ ...c, domain: "127.0.0.1" }));
          const looks: string[][] = [];
          for (const cookie of [[], [cookies.get("dark")!]]) {
            const guarded = await openPage(browsers.get("dark")!, [...signedIn, ...cookie]);
            try {
              await guarded.page.goto(`${server.origin}${path}`);
              looks.push(await lookOf(guarded.page));
            } finally {
              await guarded.close();
            }
          }
          const [unknown, dark] = looks as [string[], string[]];
          expect(unknown.length).toBeGreaterThan(50);
          expect(unknown).toEqual(dark);
        },
      );
    }
  });
}
