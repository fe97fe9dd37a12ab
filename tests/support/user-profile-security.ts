import type { BrowserContext, Page } from "@playwright/test";
import type { RunningFixture } from "./fixture-app";
import { freshAuthenticatorCode } from "clerk-emulator/testing";

// Clerk's own <UserProfile/> Security page and <SignIn/> second-factor cards, driven as a person
// would, on either SDK line (clerk-js 5's and @clerk/ui's screens say the same words).

/** A new person with a password, made through the fixture's Backend API, as an app's test set-up would. */
export async function newFixturePerson(fixture: RunningFixture, name: string, password: string) {
  const email = `${name}-${Date.now().toString(36)}@example.com`;
  const res = await fetch(`${fixture.env.CLERK_API_URL}/v1/users`, {
    method: "POST",
    headers: { Authorization: `Bearer ${fixture.env.CLERK_SECRET_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ email_address: [email], password, first_name: name, last_name: "Tester" }),
  });
  if (res.status !== 200) throw new Error(`creating ${email}: ${res.status} ${await res.text()}`);
  return { id: ((await res.json()) as { id: string }).id, email };
}

/** Another browser, named by its user agent in the devices list (a Firefox, say, beside the tests' Chromium). */
export async function otherBrowser(fixture: RunningFixture, userAgent: string) {
  const context = await fixture.browser.newContext({ userAgent });
  return { context, page: await context.newPage() };
}

/** Types a code into Clerk's code field (one input-otp field under the six boxes it draws). */
export async function typeCode(page: Page, code: string) {
  const field = page.getByLabel("Enter verification code");
  await field.waitFor({ state: "attached" });
  await field.focus();
  await page.keyboard.type(code);
}

/**
 * Adds an authenticator app on the Security page: shows the secret instead of
 * the QR code, reads it, types the code it gives, and reads the backup codes
 * Clerk shows at the end.
 */
export async function setUpAuthenticator(page: Page, appUrl: string) {
  await page.goto(`${appUrl}/user#/security`);
  await page.getByRole("button", { name: "Add two-step verification" }).click();
  await page.getByRole("menuitem", { name: "Authenticator application" }).click();
  await page.getByRole("button", { name: "Can’t scan QR code?" }).or(page.getByText("Can't scan QR code?")).click();
  const secret = await page
    .locator("input")
    .evaluateAll((inputs) => (inputs as HTMLInputElement[]).map((i) => i.value).find((v) => /^[A-Z2-7]{32}$/.test(v)));
  if (!secret) throw new Error("no TOTP secret on the card");
  await page.getByRole("button", { name: "Continue" }).click();
  await typeCode(page, freshAuthenticatorCode(secret));
  // The success card, with the backup codes Clerk returned with the verified TOTP.
  const finish = page.getByRole("button", { name: "Finish" });
  await finish.waitFor();
  const backupCodes = await page.locator(".cl-cardBox *").evaluateAll((els) =>
    els
      .filter((e) => e.children.length === 0)
      .map((e) => e.textContent?.trim() ?? "")
      .filter((t) => /^[a-z0-9]{8}$/.test(t)),
  );
  await finish.click();
  // Clerk's card holds each code twice in its DOM: each counts once.
  return { secret, backupCodes: [...new Set(backupCodes)] };
}

/** On <SignIn/>'s second-factor card: the authenticator's code, or (through "Use another method") a backup code. */
export async function passSecondFactor(page: Page, factor: { totp: string } | { backupCode: string }) {
  // The second-factor card (its code field) before anything else: the password card had a "Use another method" too.
  await page.getByLabel("Enter verification code").waitFor({ state: "attached" });
  if ("totp" in factor) return typeCode(page, freshAuthenticatorCode(factor.totp));
  await page
    .getByRole("link", { name: "Use another method" })
    .or(page.getByRole("button", { name: "Use another method" }))
    .click();
  await page.getByRole("button", { name: /backup code/i }).click();
  await page.getByLabel("Backup code").fill(factor.backupCode);
  await page.getByRole("button", { name: "Continue" }).click();
}

/** The devices <UserProfile/> lists, by the browser line each shows. */
export async function activeDevices(page: Page) {
  return page.locator(".cl-activeDeviceListItem").allInnerTexts();
}

/** Signs another device out from the Active devices list (its row's menu, "Sign out of device"): the answer's status. */
export async function signOutDevice(page: Page, whose: RegExp) {
  const row = page.locator(".cl-activeDeviceListItem", { hasText: whose });
  await row.getByRole("button").click();
  const revoked = page.waitForResponse((r) => /\/v1\/me\/sessions\/[^/]+\/revoke/.test(r.url()));
  await page.getByRole("menuitem", { name: "Sign out of device" }).click();
  return (await revoked).status();
}

export type { BrowserContext };
