import { describeSecurityPage } from "../support/security-suite";

// Core 3 (@clerk/react-router 3, clerk-js 6, @clerk/ui): two-step verification set up in Clerk's
// <UserProfile/>, signing in with it in <SignIn/>, and signing another device out, against `npm run emulator`.
describeSecurityPage("core3", {
  // @clerk/ui asks for the email and the password on its first card.
  async signIn(page, appUrl, email, password) {
    await page.goto(`${appUrl}/sign-in`);
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
  },
  async enterEmail(page, appUrl, email) {
    await page.goto(`${appUrl}/sign-in`);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
  },
  async signOut(page, appUrl) {
    await page.goto(appUrl);
    await page.locator(".cl-userButtonTrigger").click();
    await page
      .getByRole("menuitem", { name: "Sign out" })
      .or(page.getByRole("button", { name: "Sign out" }))
      .click();
    await page.getByRole("link", { name: "Sign in" }).waitFor();
  },
  serverUser: async (page) => (await page.getByTestId("user").textContent())?.trim() ?? "",
  signedOutMarker: (page) => page.getByRole("link", { name: "Sign in" }),
});
