import { expect, signInAs, test } from "./fixtures";

const PASSWORD = "correct-horse-battery";

test.describe("signing up, out and in with the real clerk-js @js", () => {
  test("sign up (code 424242), sign out, sign in with the password; theme kept with no flash", async ({ page, context }) => {
    const email = `new-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    await context.request.post("/resources/theme", { form: { theme: "dark" }, maxRedirects: 0 });

    await page.goto("/sign-up");
    await page.getByLabel("First name").fill("Nova");
    await page.getByLabel("Last name").fill("Tester");
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page).toHaveURL(/\/sign-up\/verify-email-address/);
    await page.getByLabel(/Enter verification code/i).pressSequentially("424242");
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Nova Tester");

    await page.getByTestId("user-menu-trigger").click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
    await expect(page).toHaveURL(/\/$/);

    await page.goto("/sign-in");
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Nova Tester", { timeout: 15_000 });

    // A fresh document load: signed in, and dark from the first frame.
    await page.addInitScript(() => {
      requestAnimationFrame(() => ((window as unknown as { __cls: string }).__cls = document.documentElement.className));
    });
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { __cls: string }).__cls)).toBe("dark");
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
  });

  test("a wrong password is refused with Clerk's message", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email address").fill("ada@example.com");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Password is incorrect").first()).toBeVisible();
  });

  test("the user profile opens", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "katherine@example.com");
    await page.goto("/user");
    await expect(page.getByText("katherine@example.com")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByRole("heading", { name: /Profile details|Account/ }).first()).toBeVisible();
  });

  test("token refresh keeps the user signed in past a token's lifetime", async ({ page, context, baseURL }) => {
    test.setTimeout(90_000);
    await signInAs(context, baseURL!, "edsger@example.com");
    await page.goto("/");
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
    const firstToken = (await context.cookies()).find((c) => c.name === "__session")?.value;
    // The e2e server issues 20-second tokens; wait out more than one.
    await page.waitForTimeout(26_000);
    const laterToken = (await context.cookies()).find((c) => c.name === "__session")?.value;
    expect(laterToken).toBeTruthy();
    expect(laterToken).not.toBe(firstToken);
    await page.reload();
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Edsger Dijkstra");
  });
});

test("sign-out works without JavaScript @nojs", async ({ page, context, baseURL }) => {
  await signInAs(context, baseURL!, "barbara@example.com");
  await page.goto("/");
  await page.locator('[data-testid="user-menu-fallback"] summary').click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
  await page.goto("/user");
  await expect(page).toHaveURL(/\/sign-in\?redirect_url=%2Fuser/);
});

test("without JavaScript a signed-in user stays signed in past the token's lifetime (handshake) @nojs", async ({ page, context, baseURL }) => {
  test.setTimeout(60_000);
  await signInAs(context, baseURL!, "donald@example.com");
  await page.goto("/");
  await expect(page.getByLabel("Account menu for Donald Knuth")).toBeVisible();
  await page.waitForTimeout(26_000);
  await page.goto("/user");
  await expect(page).toHaveURL(/\/user/);
  await expect(page.getByLabel("Account menu for Donald Knuth")).toBeVisible();
});
