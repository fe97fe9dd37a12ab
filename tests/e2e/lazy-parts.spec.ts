import type { Page, Route } from "@playwright/test";
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
