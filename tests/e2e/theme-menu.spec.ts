import { expect, test } from "./fixtures";

test("without JavaScript the theme menu is a real form: submit, redirect back, repaint @nojs", async ({
  page,
  context,
}) => {
  await page.goto("/sign-up");
  await page.locator('[data-testid="theme-menu-fallback"] summary').click();
  await page.getByRole("button", { name: "Dark" }).click();
  await expect(page).toHaveURL(/\/sign-up$/);
  await expect(page.locator("html")).toHaveClass("dark");
  const cookie = (await context.cookies()).find((c) => c.name === "theme");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Lax");
  // The choice shows as pressed.
  await page.locator('[data-testid="theme-menu-fallback"] summary').click();
  await expect(page.getByRole("button", { name: "Dark" })).toHaveAttribute("aria-pressed", "true");
});

test("with JavaScript the change is instant, needs no reload, and other tabs follow @js", async ({ page, context }) => {
  await page.goto("/");
  const other = await context.newPage();
  await other.goto("/sign-in");
  await expect(other.getByTestId("theme-menu-trigger")).toBeVisible();
  await page.evaluate(() => ((window as unknown as { __same: boolean }).__same = true));

  const saved = page.waitForResponse(
    (r) => new URL(r.url()).pathname.startsWith("/resources/theme") && r.request().method() === "POST",
  );
  await page.getByTestId("theme-menu-trigger").click();
  await expect(page.getByRole("menuitemradio", { name: "System" })).toHaveAttribute("aria-checked", "true");
  await page.getByRole("menuitemradio", { name: "Dark" }).click();
  await expect(page.locator("html")).toHaveClass("dark");
  expect(await page.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
  await expect(other.locator("html")).toHaveClass("dark");
  expect((await saved).status()).toBe(200);

  // Kept by the server: a fresh load paints dark.
  await page.reload();
  await expect(page.locator("html")).toHaveClass("dark");
  await page.getByTestId("theme-menu-trigger").click();
  await expect(page.getByRole("menuitemradio", { name: "Dark" })).toHaveAttribute("aria-checked", "true");
  await page.keyboard.press("ArrowDown");
  await page.getByRole("menuitemradio", { name: "Light" }).press("Enter");
  await expect(page.locator("html")).toHaveClass("light");
  await expect(other.locator("html")).toHaveClass("light");
});

test("the theme page's Save repaints at once, with or without JavaScript", async ({ page }) => {
  await page.goto("/resources/theme?redirectTo=%2Fsign-in");
  await page.getByRole("radio", { name: "Dark" }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.locator("html")).toHaveClass("dark");
  await page.goto("/resources/theme");
  await page.getByRole("radio", { name: "Light" }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator("html")).toHaveClass("light");
});

test("the navigation bar is 4rem, sticky, and keyboard reachable", async ({ page }) => {
  await page.goto("/");
  const bar = page.locator(".nav-bar");
  expect(await bar.evaluate((el) => getComputedStyle(el).position)).toBe("sticky");
  expect(await bar.evaluate((el) => el.getBoundingClientRect().height)).toBe(64);
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign up" }).first()).toBeVisible();
});

test("a 404 keeps the navigation bar and the theme", async ({ page, context }) => {
  await context.request.post("/resources/theme", { form: { theme: "dark" }, maxRedirects: 0 });
  const response = await page.goto("/nowhere/at/all");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.locator("html")).toHaveClass("dark");
});

test("the self-hosted fonts are used for text and headings", async ({ page }) => {
  await page.goto("/");
  // (A first visit asks for them once the page has painted: app/lib/web-fonts.ts.)
  await expect
    .poll(() => page.evaluate(() => [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family)))
    .toEqual(expect.arrayContaining(["Inter Variable", "Space Grotesk Variable"]));
  const families = await page.evaluate(() => ({
    text: getComputedStyle(document.querySelector("p")!).fontFamily,
    heading: getComputedStyle(document.querySelector("h1")!).fontFamily,
  }));
  expect(families.text).toMatch(/^"Inter Variable", "Inter Fallback"/);
  expect(families.heading).toMatch(/^"Space Grotesk Variable", "Space Grotesk Fallback"/);
});
