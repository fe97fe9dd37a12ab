import type { BrowserContext } from "@playwright/test";
import { confirmInClerkForm, expect, signInAs, test } from "./fixtures";
import { useShortTokenServer } from "./short-token-server";

const PASSWORD = "correct-horse-battery";

test.describe("signing up, out and in with the real clerk-js @js", () => {
  test("sign up (code 424242), sign out, sign in with the password; theme kept with no flash", async ({
    page,
    context,
  }) => {
    const email = `new-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    await context.request.post("/resources/theme", { form: { theme: "dark", redirectTo: "/" }, maxRedirects: 0 });

    await page.goto("/sign-up");
    await page.getByLabel("First name").fill("Nova");
    await page.getByLabel("Last name").fill("Tester");
    await page.getByLabel("Email address").fill(email);
    // Once in CI, Clerk's form took the click on Continue and sent nothing: clicked again until it does.
    await confirmInClerkForm(page, {
      field: page.getByLabel("Password", { exact: true }),
      text: PASSWORD,
      submit: page.getByRole("button", { name: "Continue", exact: true }),
      isRequest: (r) => r.method() === "POST" && new URL(r.url()).pathname.endsWith("/v1/client/sign_ups"),
    });
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
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Nova Tester", {
      timeout: 15_000,
    });

    // A fresh document load: signed in, and dark from the first frame.
    await page.addInitScript(() => {
      requestAnimationFrame(
        () => ((window as unknown as { __cls: string }).__cls = document.documentElement.className),
      );
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

// Past a token's lifetime, on a server of its own whose tokens live 5 seconds
// (the emulator's shortest): the tests wait for the token to change or to
// expire, not for a fixed time.
test.describe("past a session token's lifetime", () => {
  const short = useShortTokenServer();

  const sessionToken = async (context: BrowserContext) =>
    (await context.cookies()).find((c) => c.name === "__session")?.value;
  const expiry = (token: string) =>
    (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number }).exp;

  test("clerk-js refreshes the token and the user stays signed in @js", async ({ page, context }) => {
    await signInAs(context, short.origin, "edsger@example.com");
    await page.goto(`${short.origin}/`);
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
    const firstToken = await sessionToken(context);
    await expect.poll(() => sessionToken(context), { timeout: 30_000 }).not.toBe(firstToken);
    await page.reload();
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Edsger Dijkstra");
  });

  test("with clerk-js kept away, a client-side navigation past the token's expiry loads the page through the handshake, signed in @js", async ({
    page,
    context,
  }) => {
    await page.route("**/clerk.browser.js", (route) => route.abort());
    await signInAs(context, short.origin, "ada@example.com");
    await page.goto(`${short.origin}/orgs`);
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
    const token = (await sessionToken(context))!;
    // Past its expiry and Clerk's 5 s of allowed clock skew.
    await expect.poll(() => Date.now() / 1000 > expiry(token) + 6, { timeout: 30_000 }).toBe(true);
    // The page's data request carries the expired token: the server has the browser load the page instead.
    await page.getByTestId("org-choice").filter({ hasText: "Analytical Engines" }).click();
    await expect(page).toHaveURL(/\/orgs\/analytical-engines$/);
    await expect(page.getByTestId("org-name")).toHaveText("Analytical Engines");
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Ada Lovelace");
    expect(expiry((await sessionToken(context))!)).toBeGreaterThan(expiry(token));
  });

  test("without JavaScript the handshake keeps the user signed in @nojs", async ({ page, context }) => {
    await signInAs(context, short.origin, "donald@example.com");
    await page.goto(`${short.origin}/`);
    await expect(page.getByLabel("Account menu for Donald Knuth")).toBeVisible();
    const token = (await sessionToken(context))!;
    // Past its expiry and Clerk's 5 s of allowed clock skew.
    await expect.poll(() => Date.now() / 1000 > expiry(token) + 6, { timeout: 30_000 }).toBe(true);
    await page.goto(`${short.origin}/user`);
    await expect(page).toHaveURL(/\/user$/); // (the handshake's parameters taken out of the address)
    await expect(page.getByLabel("Account menu for Donald Knuth")).toBeVisible();
  });
});

test("without JavaScript, Clerk's pages say so under their heading, with no spinner that never ends @nojs", async ({
  page,
}) => {
  for (const [path, heading] of [
    ["/sign-in", "Sign in"],
    ["/sign-up", "Sign up"],
  ]) {
    await page.goto(path!);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    // (Playwright's text matching skips <noscript>; the browser shows it with JavaScript off.)
    expect(await page.locator("main").innerText()).toContain("needs JavaScript");
    // (The loading line is in the page, for the first paint with JavaScript; the stylesheet hides it without.)
    await expect(page.getByRole("status")).toHaveCount(0);
    await expect(page.getByText(/Loading/).filter({ visible: true })).toHaveCount(0);
  }
});
