import type { Page, Route } from "@playwright/test";
import { startServer, type RunningServer } from "../support/server";
import { paintAndFirstFontRequest } from "../support/web-fonts";
import { expect, signInAs, test } from "./fixtures";

/** Holds the named chunk's request until `release` is called. */
async function holdChunk(page: Page, name: string) {
  let held: Route | null = null;
  let arrived: () => void = () => undefined;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  await page.route(`**/build/_shared/${name}-*.js`, (route) => {
    held = route;
    arrived();
  });
  return {
    requested,
    release: async () => {
      await (held as Route | null)?.continue();
      await page.unroute(`**/build/_shared/${name}-*.js`);
    },
  };
}

test.describe("menus, popover and dialog load after the page @js", () => {
  test("the menu's code is fetched when the page is idle; until then the no-JavaScript menu works, and focus follows the swap", async ({
    page,
    context,
    baseURL,
  }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    const chunk = await holdChunk(page, "nav-menu.radix");
    await page.goto("/orgs/analytical-engines");
    // Asked for without any interaction (the browser was idle), and not part of the page's own scripts.
    await chunk.requested;
    const fallback = page.locator('[data-testid="theme-menu-fallback"] summary');
    await fallback.focus();
    await chunk.release();
    // The Radix trigger replaced the disclosure, and the keyboard user is still on it.
    await expect(page.getByTestId("theme-menu-trigger")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("menuitemradio", { name: "Dark" })).toBeVisible();
  });

  test("an open no-JavaScript menu stays open when the code arrives", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    const chunk = await holdChunk(page, "nav-menu.radix");
    await page.goto("/orgs/analytical-engines");
    await chunk.requested;
    await page.locator('[data-testid="user-menu-fallback"] summary').click();
    await chunk.release();
    const panel = page.getByTestId("user-menu-fallback");
    await expect(panel.getByRole("button", { name: "Sign out" })).toBeVisible();
    // The theme menu, closed, became Radix's; the open one waits until it is closed.
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    await page.locator('[data-testid="user-menu-fallback"] summary').click();
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
  });
});

test.describe("clerk-js loads when a page needs it @js", () => {
  /** How many times the page has asked for clerk-js's script so far (`asked`: at least once). */
  const watchClerkJs = (page: Page) => {
    const seen = {
      requests: 0,
      get asked() {
        return this.requests > 0;
      },
    };
    page.on("request", (request) => {
      if (/\/clerk\.browser\.js$/.test(new URL(request.url()).pathname)) seen.requests++;
    });
    return seen;
  };

  /** The console's warnings about preloads (one the page never used, or used in another mode). */
  const watchPreloadWarnings = (page: Page) => {
    const warnings: string[] = [];
    page.on("console", (message) => {
      if (/preload/i.test(message.text())) warnings.push(message.text());
    });
    return warnings;
  };

  test("not on the landing page; the sign-in screen loads it", async ({ page }) => {
    const clerkJs = watchClerkJs(page);
    await page.goto("/");
    // Hydrated, and idle long enough to load the menus (clerk-js used to be asked for while hydrating).
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    expect(clerkJs.asked).toBe(false);
    expect(await page.evaluate(() => "Clerk" in window)).toBe(false);

    await page.getByRole("link", { name: "Sign in" }).first().click();
    await expect(page.getByLabel("Email address")).toBeVisible();
    expect(clerkJs.asked).toBe(true);
  });

  test("a page that opens with Clerk's screen asks for clerk-js before it hydrates, and fetches it once", async ({
    page,
  }) => {
    const clerkJs = watchClerkJs(page);
    const preloadWarnings = watchPreloadWarnings(page);
    // The root route's script held: the page cannot hydrate until it is let through.
    let held: Route | null = null;
    await page.route("**/build/root-*.js", (route) => void (held = route));
    await page.goto("/sign-in", { waitUntil: "commit" });
    await expect.poll(() => clerkJs.requests).toBe(1);
    await expect.poll(() => held !== null).toBe(true);
    expect(await page.evaluate(() => "Clerk" in window)).toBe(false);
    // Not hydrated, and the page already says what is coming.
    await expect(page.getByRole("status")).toHaveText("Loading the sign-in form…");
    await (held as Route | null)?.continue();
    await expect(page.getByLabel("Email address")).toBeVisible();
    // The preload served the script element Clerk's loader added: one request, in the same mode.
    expect(clerkJs.requests).toBe(1);
    const entries = await page.evaluate(() =>
      performance.getEntriesByType("resource").flatMap((e) => (/clerk\.browser\.js$/.test(e.name) ? [e.name] : [])),
    );
    expect(entries).toHaveLength(1);
    expect(preloadWarnings).toEqual([]);
  });

  test("a page that opens with Clerk's screen fetches the chunks that draw it before it hydrates, each once", async ({
    page,
  }) => {
    const chunks: string[] = [];
    page.on("request", (request) => {
      const name = /\/_clerk-js\/([a-z-]+)_clerk\.browser_/.exec(new URL(request.url()).pathname)?.[1];
      if (name) chunks.push(name);
    });
    const preloadWarnings = watchPreloadWarnings(page);
    // Every request for the root module is held (a preload and an import may both ask), then all released.
    const held: Route[] = [];
    let released = false;
    await page.route("**/build/root-*.js", (route) => void (released ? route.continue() : held.push(route)));
    await page.goto("/sign-in", { waitUntil: "commit" });
    // Asked for while the page cannot hydrate (and so before clerk-js has run and asked for them).
    await expect.poll(() => [...chunks].sort()).toEqual(["framework", "signin", "ui-common", "vendors"]);
    expect(await page.evaluate(() => "Clerk" in window)).toBe(false);
    released = true;
    await Promise.all(held.map((route) => route.continue()));
    // Hydration, clerk-js's start and Clerk's first answers all come after the release: on a loaded CI
    // machine that is more than the default 10 s.
    await expect(page.getByLabel("Email address")).toBeVisible({ timeout: 30_000 });
    // clerk-js's own script elements were served by the preloads: no chunk fetched twice.
    const entries = await page.evaluate(() =>
      performance.getEntriesByType("resource").flatMap((e) => (/_clerk\.browser_/.test(e.name) ? [e.name] : [])),
    );
    expect(entries.filter((name) => /\/(framework|vendors|ui-common|signin)_/.test(name))).toHaveLength(4);
    expect(chunks.filter((name) => name !== "subscriptionDetails").sort()).toEqual([
      "framework",
      "signin",
      "ui-common",
      "vendors",
    ]);
    expect(preloadWarnings).toEqual([]);
  });

  test("on Clerk's screen the spinner turns only once the wait has lasted a second, and the status line stays put", async ({
    page,
  }) => {
    // The spinner as the page first draws it, read in the first frame after the parser adds it
    // (not after a round trip from the test, which a loaded machine can make longer than a second).
    // The same reading (`readSpinner`) serves the test's later look.
    await page.addInitScript(() => {
      const names = () => document.getAnimations().map((a) => (a as CSSAnimation).animationName);
      const readSpinner = () => {
        const spinner = document.querySelector(".clerk-frame-spinner > .rt-Spinner")!;
        const text = document.querySelector(".clerk-frame-loading .rt-Text")!.getBoundingClientRect();
        return {
          displayed: getComputedStyle(spinner).display !== "none",
          turning: names().includes("rt-spinner-leaf-fade"),
          textAt: [Math.round(text.x), Math.round(text.y)],
        };
      };
      const seen = new MutationObserver(() => {
        if (!document.querySelector(".clerk-frame-spinner > .rt-Spinner")) return;
        seen.disconnect();
        requestAnimationFrame(() => {
          Object.assign(window, {
            firstDrawn: { waiting: names().includes("clerk-frame-spinner-waits"), ...readSpinner() },
          });
        });
      });
      Object.assign(window, { readSpinner });
      seen.observe(document, { childList: true, subtree: true });
    });
    // clerk-js held: the status line stays as long as the test needs.
    let held: Route | null = null;
    await page.route("**/_clerk-js/clerk.browser.js", (route) => void (held = route));
    await page.goto("/sign-in", { waitUntil: "commit" });
    await expect(page.getByRole("status")).toHaveText("Loading the sign-in form…");
    type Spinner = { displayed: boolean; turning: boolean; textAt: number[] };
    type InPage = { firstDrawn?: Spinner & { waiting: boolean }; readSpinner: () => Spinner };
    const first = () => page.evaluate(() => (window as unknown as InPage).firstDrawn ?? null);
    await expect.poll(first).not.toBeNull();
    const early = (await first())!;
    // Drawn, its one-second wait running: not displayed, nothing turning.
    expect(early).toMatchObject({ waiting: true, displayed: false, turning: false });
    const now = () => page.evaluate(() => (window as unknown as InPage).readSpinner());
    // A second on, it turns, and the text beside it has not moved.
    await expect.poll(async () => (await now()).turning, { timeout: 5_000 }).toBe(true);
    expect(await now()).toEqual({ displayed: true, turning: true, textAt: early.textAt });
    await (held as Route | null)?.continue();
    await expect(page.getByLabel("Email address")).toBeVisible();
  });

  test("on Clerk's screen the web fonts wait for the screen, then come", async ({ page }) => {
    const fonts: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith(".woff2")) fonts.push(request.url());
    });
    const navFont = () =>
      page.evaluate(() => getComputedStyle(document.querySelector(".nav-bar") ?? document.body).fontFamily);
    // clerk-js held: the page is painted and hydrated, but Clerk's card cannot be drawn.
    let held: Route | null = null;
    await page.route("**/_clerk-js/clerk.browser.js", (route) => void (held = route));
    await page.goto("/sign-in");
    await expect.poll(() => held !== null).toBe(true);
    await expect(page.getByRole("status")).toHaveText("Loading the sign-in form…");
    expect(await page.evaluate(() => document.documentElement.hasAttribute("data-fonts-wait"))).toBe(true);
    expect(await navFont()).toMatch(/^"Inter Fallback"/);
    expect(fonts).toEqual([]);
    // Drawn: the fonts come, and the page uses them.
    await (held as Route | null)?.continue();
    await expect(page.getByLabel("Email address")).toBeVisible();
    await expect.poll(() => navFont()).toMatch(/^"Inter Variable"/);
    await expect.poll(() => fonts.length).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => document.documentElement.hasAttribute("data-fonts-wait"))).toBe(false);
  });

  test("on a first visit other pages fetch the fonts once painted, and the next visit preloads them", async ({
    page,
    context,
  }) => {
    const fonts: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith(".woff2")) fonts.push(request.url());
    });
    await page.goto("/");
    await expect.poll(() => fonts.length).toBe(2);
    expect(await page.evaluate(() => document.documentElement.hasAttribute("data-fonts-wait"))).toBe(false);
    // Asked for after the first contentful paint, not beside the stylesheet it waits for.
    const [paint, asked] = await page.evaluate(paintAndFirstFontRequest);
    expect(asked).toBeGreaterThanOrEqual(paint);
    // Loaded: the browser keeps them, and says so for the next visit, whose head preloads them.
    await expect
      .poll(async () => (await context.cookies()).find((cookie) => cookie.name === "fonts-kept")?.value)
      .toBe("1");
    await page.reload();
    await expect(page.locator('link[rel="preload"][as="font"]')).toHaveCount(2);
    expect(await page.evaluate(() => document.documentElement.hasAttribute("data-fonts-wait"))).toBe(false);
  });

  test.describe("with a minute's session tokens, as Clerk's", () => {
    // (The suite's own server has 20-second tokens: clerk-js is loaded at once to refresh them.)
    let server: RunningServer;

    test.beforeAll(async () => {
      server = await startServer({ CLERK_EMULATOR_TOKEN_TTL: "60", LOG_LEVEL: "silent" });
    });

    test.afterAll(async () => {
      await server?.stop();
    });

    test("an organization that is not the session's active one has clerk-js loaded to make it active", async ({
      page,
      context,
    }) => {
      await signInAs(context, server.origin, "ada@example.com");
      const clerkJs = watchClerkJs(page);
      await page.goto(`${server.origin}/orgs/analytical-engines`);
      await expect
        .poll(() =>
          page.evaluate(
            () => (window as unknown as { Clerk?: { organization?: { id: string } | null } }).Clerk?.organization?.id,
          ),
        )
        .toBe("org_seed_engines");
      expect(clerkJs.asked).toBe(true);
    });

    test("a signed-in page loads it 20 seconds before its token expires", async ({ page, context }) => {
      await page.clock.install();
      // Analytical Engines active, as after choosing it (else clerk-js is loaded to make it active).
      await signInAs(context, server.origin, "ada@example.com", "org_seed_engines");
      const clerkJs = watchClerkJs(page);
      await page.goto(`${server.origin}/orgs/analytical-engines`);
      await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
      expect(clerkJs.asked).toBe(false);

      await page.clock.fastForward("00:41");
      await expect.poll(() => clerkJs.asked).toBe(true);
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { Clerk?: { loaded: boolean } }).Clerk?.loaded))
        .toBe(true);
    });

    test("not on a signed-in page with time left on its token; signing out goes through the server", async ({
      page,
      context,
    }) => {
      // Analytical Engines active, as after choosing it (else clerk-js is loaded to make it active).
      await signInAs(context, server.origin, "ada@example.com", "org_seed_engines");
      const clerkJs = watchClerkJs(page);
      await page.goto(`${server.origin}/orgs/analytical-engines`);
      await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
      // Client-side navigation too.
      await page.getByRole("link", { name: "Members" }).first().click();
      await expect(page).toHaveURL(/\/members$/);
      await expect(page.getByRole("heading", { level: 2, name: "Members" })).toBeVisible();
      expect(clerkJs.asked).toBe(false);

      await page.getByTestId("user-menu-trigger").click();
      await page.getByRole("menuitem", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
      await page.goto(`${server.origin}/orgs`);
      await expect(page).toHaveURL(/\/sign-in/);
    });
  });
});

test("without JavaScript, Clerk's pages do not download clerk-js @nojs", async ({ page }) => {
  let asked = 0;
  page.on("request", (request) => {
    if (/\/_?clerk/.test(new URL(request.url()).pathname) && request.resourceType() === "script") asked++;
  });
  await page.goto("/sign-in");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await page.goto("/sign-up");
  await expect(page.getByRole("heading", { level: 1, name: "Sign up" })).toBeVisible();
  expect(asked).toBe(0);
});
