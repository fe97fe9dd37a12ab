import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { paintAndFirstFontRequest } from "../support/web-fonts";
import { closeFirefox, launchFirefox, openPage } from "./firefox";

// The web fonts on a first visit (app/lib/web-fonts.ts), in Firefox: held back by the head's script
// until the browser reports the first contentful paint, then loaded, the browser saying so with
// `fonts-kept`; its next document preloads them instead.
describe("Firefox with JavaScript: the web fonts on a first visit", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: "silent" });
    browser = await launchFirefox({ os: "light", javaScript: true });
  }, 60_000);

  afterAll(async () => {
    await closeFirefox(browser);
    await server?.stop();
  });

  it("come once the page has painted, and the next visit preloads them", async () => {
    const guarded = await openPage(browser);
    const { page, context } = guarded;
    try {
      await page.goto(`${server.origin}/`);
      await page.waitForFunction(
        () =>
          !document.documentElement.hasAttribute("data-fonts-wait") &&
          ["Inter Variable", "Space Grotesk Variable"].every((family) =>
            [...document.fonts].some((face) => face.family.replace(/"/g, "") === family && face.status === "loaded"),
          ),
        { timeout: 10_000 },
      );
      const [paint, asked] = await page.evaluate(paintAndFirstFontRequest);
      expect(asked).toBeGreaterThanOrEqual(paint);
      const deadline = Date.now() + 5_000;
      while (!(await context.cookies()).some((c) => c.name === "fonts-kept" && c.value === "1")) {
        if (Date.now() > deadline) throw new Error("no fonts-kept cookie");
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.reload();
      expect(await page.$$eval('link[rel="preload"][as="font"]', (links) => links.length)).toBe(2);
    } finally {
      await guarded.close();
    }
  });
});
