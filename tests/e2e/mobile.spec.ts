import type { Page } from "@playwright/test";
import { expect, signInAs, test } from "./fixtures";

// A phone: 390 × 844, touch, a mobile user agent. Runs with JavaScript on and off.
const PHONE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36";

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, userAgent: PHONE_UA });

  /** Opens the bar's menu: a Radix dialog with JavaScript, a disclosure without. */
  async function openMenu(page: Page, javaScript: boolean) {
    if (javaScript) {
      await page.getByTestId("mobile-menu-trigger").tap();
      const menu = page.getByRole("dialog", { name: "Menu" });
      await expect(menu).toBeVisible();
      return menu;
    }
    const details = page.getByTestId("mobile-menu-fallback");
    await details.locator("summary").tap();
    return details;
  }

  const jsOn = (projectName: string) => projectName === "javascript-on";

  test("signed out: the bar fits, and the menu offers sign-in, sign-up and the theme", async ({ page }, info) => {
    await page.goto("/");
    await expect(page.locator(".nav-bar")).toHaveCSS("height", "64px");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const menu = await openMenu(page, jsOn(info.project.name));
    await expect(menu.getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(menu.getByRole("link", { name: "Sign up" })).toBeVisible();
    await menu.getByRole("button", { name: "Dark" }).tap();
    await expect(page.locator("html")).toHaveClass("dark");
    await expect(page).toHaveURL(/\/$/);
  });

  test("signed in: theme and sign-out are two taps away", async ({ page, context, baseURL }, info) => {
    await signInAs(context, baseURL!, "barbara@example.com");
    await page.goto("/orgs");
    const js = jsOn(info.project.name);
    let menu = await openMenu(page, js);
    await menu.getByRole("button", { name: "Light" }).tap();
    await expect(page.locator("html")).toHaveClass("light");
    if (!js) await expect(page).toHaveURL(/\/orgs$/);
    menu = js ? page.getByRole("dialog", { name: "Menu" }) : await openMenu(page, js);
    await menu.getByRole("button", { name: "Sign out" }).tap();
    await expect(page.getByTestId(js ? "mobile-menu-trigger" : "mobile-menu-fallback")).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    await page.goto("/orgs");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("switching organizations from the bar", async ({ page, context, baseURL }, info) => {
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto("/orgs/analytical-engines");
    if (jsOn(info.project.name)) {
      await page.getByTestId("org-switcher-trigger").tap();
      await page
        .getByTestId("org-switcher-panel")
        .getByRole("link", { name: /Difference & Co/ })
        .tap();
    } else {
      await page.getByTestId("org-switcher-link").tap();
      await page.getByRole("link", { name: /Difference & Co/ }).tap();
    }
    await expect(page).toHaveURL(/\/orgs\/difference-co$/);
    await expect(page.getByTestId("org-name")).toHaveText("Difference & Co");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test("the menu traps focus, closes on Escape and on navigation, and gives focus back @js", async ({
    page,
    context,
    baseURL,
  }) => {
    await signInAs(context, baseURL!, "grace@example.com");
    await page.goto("/orgs");
    const trigger = page.getByTestId("mobile-menu-trigger");
    await trigger.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("dialog", { name: "Menu" });
    await expect(menu).toBeVisible();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      expect(await menu.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(trigger).toBeFocused();

    await trigger.tap();
    await menu.getByRole("link", { name: "Organizations" }).tap();
    await expect(menu).toBeHidden();
  });
});
