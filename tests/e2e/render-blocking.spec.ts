import type { Page } from "@playwright/test";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";

// One stylesheet holds up a page's first paint: first-paint-<theme>.css, the
// theme being the one the server paints (the class it puts on <html>, or none
// when it cannot know: "unknown"). Everything else (clerk-js, the app's
// scripts, and after-paint.css, which only a hydrated page asks for) comes
// without delaying a paint. Chromium says which resources held up rendering
// (Resource Timing's renderBlockingStatus), with JavaScript on and off (the
// two projects).

const PAGES = {
  signedOut: ["/", "/sign-in"],
  signedIn: ["/orgs", "/orgs/analytical-engines", "/orgs/analytical-engines/members", "/user"],
};

type Loaded = { blocking: string[]; afterPaint: string[]; serverTheme: string };

async function visit(page: Page, path: string, javaScript: boolean): Promise<Loaded> {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  const html = (await response?.text()) ?? "";
  const serverTheme = /<html[^>]*\bclass="(light|dark)"/.exec(html)?.[1] ?? "unknown";
  await page.waitForLoadState("load");
  if (javaScript)
    await page.waitForFunction(() =>
      performance.getEntriesByType("resource").some((entry) => entry.name.includes("/after-paint-")),
    );
  const resources = await page.evaluate(() =>
    // renderBlockingStatus: Chromium 107 and later; not yet in TypeScript's DOM types.
    (performance.getEntriesByType("resource") as (PerformanceResourceTiming & { renderBlockingStatus: string })[]).map(
      (entry) => ({
        name: new URL(entry.name).pathname,
        status: entry.renderBlockingStatus,
      }),
    ),
  );
  const file = (name: string) => name.replace(/^.*\//, "").replace(/-[A-Z0-9]{8}\.css$/, ".css");
  return {
    blocking: resources.filter((r) => r.status === "blocking").map((r) => file(r.name)),
    afterPaint: resources.filter((r) => /\/after-paint-[A-Z0-9]+\.css$/.test(r.name)).map((r) => r.status),
    serverTheme,
  };
}

for (const theme of ["light", "dark", "system"] as const) {
  test(`one stylesheet holds up the first paint, the one of the theme the server paints (${theme})`, async ({
    browser,
    baseURL,
  }, info) => {
    test.setTimeout(120_000);
    const javaScript = info.project.name === "javascript-on";
    const guarded = await openGuardedContext(browser, { baseURL, javaScriptEnabled: javaScript });
    const { context } = guarded;
    try {
      if (theme !== "system")
        await context.request.post("/resources/theme", { form: { theme, redirectTo: "/" }, maxRedirects: 0 });
      const page = await context.newPage();
      const seen: string[] = [];
      const check = async (path: string) => {
        const { blocking, afterPaint, serverTheme } = await visit(page, path, javaScript);
        if (theme !== "system") expect(serverTheme, path).toBe(theme);
        expect(blocking, `${path}: what held up the first paint`).toEqual([`first-paint-${serverTheme}.css`]);
        // A stylesheet the parser meets, even at the body's end, counts as blocking in Lighthouse.
        expect(afterPaint, `${path}: after-paint.css, only once hydrated`).toEqual(javaScript ? ["non-blocking"] : []);
        seen.push(serverTheme);
      };
      for (const path of PAGES.signedOut) await check(path);
      await signInAs(context, baseURL!, "ada@example.com");
      for (const path of PAGES.signedIn) await check(path);
      expect(seen).toHaveLength(PAGES.signedOut.length + PAGES.signedIn.length);
    } finally {
      await guarded.close();
    }
  });
}
