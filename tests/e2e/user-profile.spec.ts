import type { Page } from "@playwright/test";
import { backendApi, newPerson, uniqueEmail } from "../support/emulator-api";
import { confirmInClerkForm, expect, signInAs, test } from "./fixtures";

// What a person does to their own account through Clerk's <UserProfile/> (the app's /user page),
// with the real clerk-js against the emulator. Each test makes its own person: tests share one
// server and run in parallel, and these change the account.

const PASSWORD = "first-password-1";
const NEW_PASSWORD = "second-password-2";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

// An 8×8 blue PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGOwS76LFTEMLQkAKTNfgXzZBs8AAAAASUVORK5CYII=",
  "base64",
);

type Bapi = ReturnType<typeof backendApi>;

/** The same person signed in on another browser, as the control API makes one (with that browser's user agent). */
async function otherDevice(baseURL: string, email: string, userAgent = FIREFOX) {
  const res = await fetch(`${baseURL}/__clerk/_emulator/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, userAgent }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { sessionId: string }).sessionId;
}

const sessionStatuses = async (bapi: Bapi, userId: string) =>
  Object.fromEntries(
    ((await bapi("GET", `/v1/sessions?user_id=${userId}`)).body as { id: string; status: string }[]).map((s) => [
      s.id,
      s.status,
    ]),
  );

/** The page as it is, at desktop and at phone width, for a person to look at (not compared). */
async function shoot(page: Page, name: string) {
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.screenshot({ path: test.info().outputPath(`${name}-1280.png`), animations: "disabled" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath(`${name}-390.png`), animations: "disabled" });
  await page.setViewportSize(desktop);
}

const profileOf = (page: Page) => page.locator(".cl-userProfile-root");

async function openSecurity(page: Page) {
  const profile = profileOf(page);
  await profile.getByRole("button", { name: "Security" }).click();
  await expect(page).toHaveURL(/\/user\/security$/);
  await expect(profile.locator(".cl-profileSectionTitle__password")).toBeVisible();
  return profile;
}

/** Adds an address through the component and verifies it with the emulator's test code. */
async function addVerifiedEmail(page: Page, address: string) {
  const profile = profileOf(page);
  await profile.getByRole("button", { name: "Add email address" }).click();
  await profile.getByLabel("Email address").fill(address);
  await profile.getByRole("button", { name: "Add", exact: true }).click();
  const code = profile.locator("input[data-input-otp]");
  await expect(code).toBeVisible();
  await code.fill("424242");
  await expect(profile.locator(".cl-profileSectionItem__emailAddresses").filter({ hasText: address })).toBeVisible();
  await expect(code).toHaveCount(0);
}

async function changePassword(page: Page, current: string, next: string, { signOutOthers = false } = {}) {
  const profile = profileOf(page);
  await profile.getByLabel("Current password").fill(current);
  await profile.getByLabel("New password").fill(next);
  await profile.getByLabel("Confirm password").fill(next);
  if (signOutOthers) await profile.getByRole("checkbox", { name: "Sign out of all other devices" }).check();
  await profile.getByRole("button", { name: "Save", disabled: false }).click();
}

test.describe("a person's own account in Clerk's UserProfile @js", () => {
  test("changes their first and last name", async ({ page, context, baseURL }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "naming", PASSWORD);
    await signInAs(context, baseURL!, person.email);
    await page.goto("/user");
    const profile = profileOf(page);
    await expect(profile.getByText("Naming Tester")).toBeVisible();
    await shoot(page, "profile");

    await profile.getByRole("button", { name: "Update profile" }).click();
    await profile.getByLabel("First name").fill("Grace");
    await profile.getByLabel("Last name").fill("Hopper");
    await profile.getByRole("button", { name: "Save", disabled: false }).click();
    await expect(profile.getByText("Grace Hopper")).toBeVisible();
    await expect(profile.getByLabel("First name")).toHaveCount(0);

    const user = (await bapi("GET", `/v1/users/${person.id}`)).body;
    expect([user.first_name, user.last_name]).toEqual(["Grace", "Hopper"]);
    // A fresh load shows what the emulator kept, not what clerk-js remembered.
    await page.reload();
    await expect(profileOf(page).getByText("Grace Hopper")).toBeVisible();
  });

  test("adds a second address, verifies it, makes it primary and removes the old one", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "emails", PASSWORD);
    const second = uniqueEmail("emails-second");
    await signInAs(context, baseURL!, person.email);
    await page.goto("/user");
    const profile = profileOf(page);
    const item = (address: string) =>
      profile.locator(".cl-profileSectionItem__emailAddresses").filter({ hasText: address });

    // Clerk's menu offers to remove even the only, primary address: the emulator refuses it, as Clerk does.
    await item(person.email).getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Remove email" }).click();
    await profile.getByRole("button", { name: "Remove", disabled: false }).click();
    await expect(profile.getByText("You cannot delete your primary email address")).toBeVisible();
    await shoot(page, "emails-primary-removal-refused");
    await profile.getByRole("button", { name: "Cancel", disabled: false }).click();
    await expect(item(person.email).getByText("Primary")).toBeVisible();

    await addVerifiedEmail(page, second);
    await expect(item(second).getByText("Primary")).toHaveCount(0);
    await expect(item(person.email).getByText("Primary")).toBeVisible();
    await shoot(page, "emails-two-addresses");

    await item(second).getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Set as primary" }).click();
    await expect(item(second).getByText("Primary")).toBeVisible();
    await expect(item(person.email).getByText("Primary")).toHaveCount(0);

    await item(person.email).getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Remove email" }).click();
    await profile.getByRole("button", { name: "Remove", disabled: false }).click();
    await expect(item(person.email)).toHaveCount(0);

    const user = (await bapi("GET", `/v1/users/${person.id}`)).body;
    const addresses = (user.email_addresses as { id: string; email_address: string }[]).map((e) => e.email_address);
    expect(addresses).toEqual([second]);
    expect(user.primary_email_address_id).toBe(user.email_addresses[0].id);
  });

  test("changes the password with the current one, and can sign out their other devices", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "password", PASSWORD);
    const elsewhere = await otherDevice(baseURL!, person.email);
    const here = (await signInAs(context, baseURL!, person.email)).sessionId;
    await page.goto("/user");
    const profile = await openSecurity(page);

    await profile.getByRole("button", { name: "Update password" }).click();
    await changePassword(page, "not-my-password", NEW_PASSWORD, { signOutOthers: true });
    // Clerk shows the Frontend API's message under the field it names.
    await expect(profile.locator(".cl-formFieldErrorText__currentPassword")).toHaveText(
      "Password is incorrect. Try again.",
    );
    await shoot(page, "password-wrong-current");
    expect(await sessionStatuses(bapi, person.id)).toEqual({ [here]: "active", [elsewhere]: "active" });

    await profile.getByLabel("Current password").fill(PASSWORD);
    await profile.getByRole("button", { name: "Save", disabled: false }).click();
    await expect(profile.getByLabel("Current password")).toHaveCount(0);
    await expect(profile.locator(".cl-profileSectionTitle__password")).toBeVisible();
    expect(await sessionStatuses(bapi, person.id)).toEqual({ [here]: "active", [elsewhere]: "revoked" });
    // This browser stays signed in.
    await page.reload();
    await expect(profileOf(page).locator(".cl-profileSectionTitle__password")).toBeVisible();
  });

  test("uploads a profile image that the emulator serves, and removes it", async ({ page, context, baseURL }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "avatar", PASSWORD);
    await signInAs(context, baseURL!, person.email);
    await page.goto("/user");
    const profile = profileOf(page);

    await profile.getByRole("button", { name: "Update profile" }).click();
    await profile.locator('input[type="file"]').setInputFiles({ name: "me.png", mimeType: "image/png", buffer: PNG });
    // An uploaded image, not the default avatar a person without one shows (as Clerk's, drawn by the emulator).
    const uploaded = 'img[src*="/__clerk/images/"]:not([src*="/avatar_placeholder/"])';
    const avatar = profile.locator(uploaded).first();
    await expect(avatar).toBeVisible();
    const served = await page.request.get((await avatar.getAttribute("src"))!);
    expect([served.status(), served.headers()["content-type"]]).toEqual([200, "image/png"]);
    expect(Buffer.from(await served.body()).equals(PNG)).toBe(true);
    await expect.poll(async () => (await bapi("GET", `/v1/users/${person.id}`)).body.has_image).toBe(true);

    // For a moment after the upload, Clerk can hold two copies of this button (seen once in CI): wait until one is left.
    await expect(profile.getByRole("button", { name: "Update profile" })).toHaveCount(1);
    await profile.getByRole("button", { name: "Update profile" }).click();
    await profile.getByRole("button", { name: "Remove", disabled: false }).click();
    await expect(profile.locator(uploaded)).toHaveCount(0);
    await expect(profile.locator('img[src*="/avatar_placeholder/"]').first()).toBeVisible();
    await expect.poll(async () => (await bapi("GET", `/v1/users/${person.id}`)).body.has_image).toBe(false);
  });

  test("sees this device and another one, and signs the other one out", async ({ page, context, baseURL }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "devices", PASSWORD);
    const firefox = await otherDevice(baseURL!, person.email);
    const here = (await signInAs(context, baseURL!, person.email)).sessionId;
    await page.goto("/user");
    const profile = await openSecurity(page);

    const devices = profile.locator(".cl-activeDevice");
    await expect(devices).toHaveCount(2);
    const current = profile.locator(".cl-activeDevice__current");
    await expect(current.getByText("This device")).toBeVisible();
    const other = devices.filter({ hasText: "Firefox 128.0" });
    await expect(other.getByText("This device")).toHaveCount(0);
    await shoot(page, "devices");

    await profile.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Sign out of device" }).click();
    await expect(other).toHaveCount(0);
    await expect(devices).toHaveCount(1);
    expect(await sessionStatuses(bapi, person.id)).toEqual({ [here]: "active", [firefox]: "revoked" });
  });

  test("cannot delete the account while the sole admin of a team, and can once free of it", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const person = await newPerson(bapi, "leaving", PASSWORD);
    const colleague = await newPerson(bapi, "colleague", PASSWORD);
    const org = (await bapi("POST", "/v1/organizations", { name: `Leaving ${Date.now()}`, created_by: person.id }))
      .body;
    await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: colleague.id, role: "org:member" });
    await signInAs(context, baseURL!, person.email);
    await page.goto("/user");
    const profile = await openSecurity(page);

    await profile.getByRole("button", { name: "Delete account" }).click();
    // clerk-js sends DELETE as a POST with `_method=DELETE`.
    const confirm = () =>
      confirmInClerkForm(page, {
        field: profile.getByLabel('Type "Delete account" below to continue.'),
        text: "Delete account",
        submit: profile.locator(".cl-formButtonPrimary").filter({ hasText: "Delete account" }),
        isRequest: (r) => new URL(r.url()).pathname.endsWith("/v1/me") && r.method() !== "GET",
      });

    // The team would be left with nobody to manage it: Clerk's error, in the form.
    const refused = await confirm();
    expect([refused.status(), (await refused.json()).errors[0].code]).toEqual([
      400,
      "organization_minimum_permissions_needed",
    ]);
    await expect(profile.locator(".cl-alert")).toContainText((await refused.json()).errors[0].message);
    await shoot(page, "delete-account-sole-admin");
    expect((await bapi("GET", `/v1/users/${person.id}`)).status).toBe(200);

    // With the colleague gone, nobody is left behind.
    await bapi("DELETE", `/v1/organizations/${org.id}/memberships/${colleague.id}`);
    const deleted = await confirm();
    expect(deleted.status()).toBe(200);
    // Clerk signs the browser out and goes to the after-sign-out page: the landing page.
    await expect(page).toHaveURL(`${baseURL}/`);
    await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
    expect((await bapi("GET", `/v1/users/${person.id}`)).status).toBe(404);
    await page.goto("/user");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("afterwards signs in with the new address and password, and the old password is refused", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    // A whole journey (two profile forms, sign-out, three sign-in attempts): on a busy machine it needs more than one test's time.
    test.slow();
    const person = await newPerson(bapi, "moving", PASSWORD);
    const address = uniqueEmail("moved");
    await signInAs(context, baseURL!, person.email);
    await page.goto("/user");
    const profile = profileOf(page);
    const item = (a: string) => profile.locator(".cl-profileSectionItem__emailAddresses").filter({ hasText: a });

    await addVerifiedEmail(page, address);
    await item(address).getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Set as primary" }).click();
    await expect(item(address).getByText("Primary")).toBeVisible();
    await item(person.email).getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("menuitem", { name: "Remove email" }).click();
    await profile.getByRole("button", { name: "Remove", disabled: false }).click();
    await expect(item(person.email)).toHaveCount(0);

    await openSecurity(page);
    await profile.getByRole("button", { name: "Update password" }).click();
    await changePassword(page, PASSWORD, NEW_PASSWORD);
    await expect(profile.getByLabel("Current password")).toHaveCount(0);

    await page.getByTestId("user-menu-trigger").click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();

    // The old address is gone with the account's old identity.
    await page.goto("/sign-in");
    await page.getByLabel("Email address").fill(person.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.locator(".cl-formFieldErrorText__identifier")).toContainText("Couldn't find your account");

    await page.getByLabel("Email address").fill(address);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.locator(".cl-formFieldErrorText__password")).toContainText("Password is incorrect");

    await page.getByLabel("Password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Moving Tester");
    await page.goto("/user");
    await expect(profileOf(page).getByText(address)).toBeVisible();
  });
});
