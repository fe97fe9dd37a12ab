import type { BrowserContext, Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackContext, screenshot, startFixtureApp, type FixtureApp } from "../support/fixture-apps-phone";

// Issue 49, phone numbers and usernames, in Clerk's own components on Core 2
// (@clerk/remix 4, clerk-js 5; tests/fixtures/core2): a number added and
// verified in <UserProfile/>; a username, then that number with an SMS code,
// signing in through <SignIn/>.
const PASSWORD = "phone-fixture-password";
const CODE = "424242";
let app: FixtureApp;
let context: BrowserContext;
let page: Page;
let offLoopback: string[] = [];

beforeAll(async () => {
  app = await startFixtureApp("core2");
  ({ context, offLoopback } = await loopbackContext(app.browser));
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await app?.stop();
  // The contract check (tests/support/contract-setup.ts) has read every answer of the emulator.
  expect(offLoopback).toEqual([]);
});

describe("phone numbers and usernames in Clerk's components (Core 2)", () => {
  const username = `kay_${Date.now().toString(36)}`;
  let userId = "";

  it("signs in with a username and password in <SignIn/>", async () => {
    const made = await app.bapi("POST", "/users", {
      email_address: [`${username}@example.com`],
      username,
      password: PASSWORD,
      first_name: "Kay",
    });
    expect(made.status).toBe(200);
    userId = made.body.id;
    await page.goto(app.appUrl);
    await page.locator("input[name=identifier]").fill(username);
    await page.locator(".cl-formButtonPrimary").click();
    await page.locator("input[name=password]").fill(PASSWORD);
    await page.locator(".cl-formButtonPrimary").click();
    await page.locator("#user", { hasText: userId }).waitFor({ timeout: 20_000 });
  }, 60_000);

  it("adds a phone number in <UserProfile/>, verifies it with the code, and lists it", async () => {
    await page.goto(`${app.appUrl}/user`);
    const profile = page.locator(".cl-userProfile-root");
    await profile.getByText("Add phone number").click({ timeout: 20_000 });
    // One of Clerk's test numbers, +1 (212) 555-0142, typed as a person types it.
    await profile.locator("input[name=phoneNumber]").pressSequentially("2125550142");
    await profile.locator(".cl-formButtonPrimary").click();
    await profile.getByLabel("Enter verification code").pressSequentially(CODE);
    const listed = profile.locator(".cl-profileSection__phoneNumbers");
    await expect.poll(() => listed.textContent(), { timeout: 20_000 }).toContain("+1 (212) 555-0142");
    // Verified, so no "Unverified" badge, and the user's first verified number: primary.
    await expect.poll(() => listed.textContent()).toContain("Primary");
    expect(await listed.textContent()).not.toContain("Unverified");
    const user = await app.bapi("GET", `/users/${userId}`);
    expect(user.body.phone_numbers).toMatchObject([
      { phone_number: "+12125550142", verification: { status: "verified" } },
    ]);
    expect(user.body.primary_phone_number_id).toBe(user.body.phone_numbers[0].id);
    await expect.poll(() => profile.getByLabel("Enter verification code").count()).toBe(0);
    await screenshot(page, "core2");
  }, 60_000);

  it("signs in with that phone number and an SMS code in <SignIn/>", async () => {
    const { context: fresh } = await loopbackContext(app.browser);
    try {
      const other = await fresh.newPage();
      await other.goto(app.appUrl);
      await other.getByText("Use phone").click({ timeout: 20_000 });
      await other.locator("input[name=identifier]").pressSequentially("2125550142");
      await other.locator(".cl-formButtonPrimary").click();
      // The instance prefers passwords: the SMS code is Clerk's other method.
      await other.getByText("Use another method").click({ timeout: 20_000 });
      await other.getByText(/Send SMS code to/).click({ timeout: 20_000 });
      await other.getByLabel("Enter verification code").pressSequentially(CODE);
      await other.locator("#user", { hasText: userId }).waitFor({ timeout: 20_000 });
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
