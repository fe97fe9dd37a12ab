import { describeSecurityPage } from "../support/security-suite";

// Core 2 (@clerk/remix 4, clerk-js 5): two-step verification set up in Clerk's <UserProfile/>,
// signing in with it in <SignIn/>, and signing another device out, against `npm run emulator`.
describeSecurityPage("core2", {
  // <SignIn/> is on the home page: email, then password.
  async signIn(page, appUrl, email, password) {
    await this.enterEmail(page, appUrl, email);
    await page.locator("input[name=password]").fill(password);
    await page.locator(".cl-formButtonPrimary").click();
  },
  async enterEmail(page, appUrl, email) {
    await page.goto(appUrl);
    await page.locator("input[name=identifier]").fill(email);
    await page.locator(".cl-formButtonPrimary").click();
  },
  async signOut(page, appUrl) {
    await page.goto(appUrl);
    await page.locator(".cl-userButtonTrigger").click();
    await page.locator(".cl-userButtonPopoverActionButton__signOut").click();
    await page.locator("#user", { hasText: /^none$/ }).waitFor();
  },
  serverUser: async (page) => (await page.locator("#user").textContent()) ?? "",
  signedOutMarker: (page) => page.locator("input[name=identifier]"),
});
