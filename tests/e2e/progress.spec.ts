import type { Page } from "@playwright/test";
import { expect, markDocument, test } from "./fixtures";

test.describe("page changes @js", () => {
  async function delay(page: Page, pattern: RegExp, ms: number) {
    await page.route(pattern, async (route) => {
      await new Promise((r) => setTimeout(r, ms));
      await route.continue().catch(() => {});
    });
  }

  test("the progress bar shows during a slow navigation with its spec values, then goes", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    await delay(page, /\/sign-in\.data/, 1500);
    await page.getByRole("link", { name: "Sign in" }).first().click();

    const bar = page.locator("#nprogress .bar");
    await expect(bar).toBeAttached();
    await expect(bar).toHaveAttribute("role", "progressbar");
    await expect(bar).toHaveAttribute("aria-label", "Loading page");
    const style = await bar.evaluate((el) => ({
      z: getComputedStyle(el).zIndex,
      height: getComputedStyle(el).height,
      duration: getComputedStyle(el).transitionDuration,
      background: getComputedStyle(el).backgroundColor,
      accent: getComputedStyle(document.getElementById("theme-root")!).getPropertyValue("--accent-9").trim(),
    }));
    expect(style.z).toBe("1600");
    expect(style.height).toBe("3px");
    expect(style.duration).toBe("0.2s");
    expect(style.background).not.toBe("rgba(0, 0, 0, 0)");
    await expect(page.locator("#nprogress .spinner")).toHaveCount(0);

    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.locator("#nprogress")).toHaveCount(0);
  });

  test("starts at the 8% minimum", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    await delay(page, /\/sign-up\.data/, 1500);
    const firstTransform = page.waitForFunction(() => {
      const el = document.querySelector<HTMLElement>("#nprogress .bar");
      return el?.style.transform || null;
    });
    await page.getByRole("link", { name: "Sign up" }).first().click();
    expect(await (await firstTransform).jsonValue()).toBe("translate3d(-92%, 0px, 0px)");
  });

  test("under reduced motion the bar does not slide", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/");
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    await delay(page, /\/sign-in\.data/, 1500);
    await page.getByRole("link", { name: "Sign in" }).first().click();
    const bar = page.locator("#nprogress .bar");
    await expect(bar).toBeAttached();
    expect(await bar.evaluate((el) => getComputedStyle(el).transitionDuration)).toBe("0s");
  });

  test("code still missing after 3800 ms: full document navigation to the same URL", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    // Stall the destination route's JavaScript chunk (client navigations only ask for it once).
    let stalled = 0;
    await page.route(/\/build\/routes\/sign-up\.\$-[^/]+\.js$/, async (route) => {
      stalled += 1;
      if (stalled === 1) {
        await new Promise((r) => setTimeout(r, 8000));
      }
      await route.continue().catch(() => {});
    });
    const replaced = await markDocument(page);
    const started = Date.now();
    const documentRequest = page.waitForRequest((r) => r.isNavigationRequest() && r.url().endsWith("/sign-up"));
    await page.getByRole("link", { name: "Sign up" }).first().click();
    await documentRequest;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(3800);
    expect(elapsed).toBeLessThan(7000);
    await expect(page).toHaveURL(/\/sign-up$/);
    expect(await replaced()).toBe(true);
  });

  test("slow data alone never triggers the fallback", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
    await delay(page, /\/sign-in\.data/, 5000);
    const replaced = await markDocument(page);
    await page.getByRole("link", { name: "Sign in" }).first().click();
    await expect(page).toHaveURL(/\/sign-in$/, { timeout: 10_000 });
    expect(await replaced()).toBe(false);
  });
});
