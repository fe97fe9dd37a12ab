import type { Browser, BrowserContext, Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "clerk-emulator";
import { openAfterExpiry, sessionTokenClaims, tokenOrgId } from "../support/expired-session";
import { startFixture, type RunningFixture } from "../support/fixture-app";

// Core 3 (@clerk/react-router 3, clerk-js 6, @clerk/ui) against `npm run emulator`:
// a React Router 7 app (tests/fixtures/core3) behind the one proxy rule, in
// Chromium, every answer of the emulator checked against Clerk's spec.
// Clerk's own session token lifetime (the emulator's default): the refresh below is
// clerk-js's token cache running out as it does against Clerk, not a poller racing a short token.
const TOKEN_TTL = 60;
const PASSWORD = DEMO_PASSWORD;
const CODE = "424242";
// @clerk/backend's default clockSkewInMs: a token is still taken this long after its exp.
const CLOCK_SKEW = 5;

let fixture: RunningFixture;
let appUrl = "";
let browser: Browser;

// Built every run (a few seconds, never a stale build), behind its proxy rule (tests/support/fixture-app.ts).
beforeAll(async () => {
  fixture = await startFixture("core3");
  ({ appUrl, browser } = fixture);
}, 60_000);

afterAll(async () => {
  await fixture?.stop();
});

/** The organization in the browser's session token: what its next document request carries. */
async function cookieOrg(context: BrowserContext): Promise<string | null> {
  return tokenOrgId(sessionTokenClaims(await context.cookies()));
}

/** What the home page's loader read with getAuth. */
async function serverSees(page: Page) {
  const text = async (id: string) => (await page.getByTestId(id).textContent())?.trim() ?? "";
  return {
    user: await text("user"),
    org: await text("org"),
    slug: await text("org-slug"),
    role: await text("org-role"),
    iat: Number(await text("iat")),
  };
}

async function signInWithPassword(page: Page, email: string) {
  await page.goto(`${appUrl}/sign-in`);
  // @clerk/ui asks for both on its first card.
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.waitForURL(`${appUrl}/`);
  await expect.poll(async () => (await serverSees(page)).user).toMatch(/^user_/);
}

describe("Core 3 (@clerk/react-router 3) against the standalone emulator", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  it("signs in with a password, and the loader's getAuth sees the user", async () => {
    await signInWithPassword(page, "ada@example.com");
    // A document request carries the session: the server, not only the browser, knows who it is.
    await page.reload();
    expect((await serverSees(page)).user).toMatch(/^user_/);
  }, 60_000);

  it("creates an organization and switches between organizations, the loader's org claims following", async () => {
    const name = `Core three ${Date.now()}`;
    await page.locator(".cl-organizationSwitcherTrigger").click();
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.locator(".cl-formButtonPrimary").click();
    // clerk-js sets the new organization active and puts a token with its claims in the cookie;
    // a reload before that would cut it short (the page's token stays good for a minute).
    await expect.poll(() => cookieOrg(context), { timeout: 15_000 }).toMatch(/^org_/);
    await page.reload();
    const created = await serverSees(page);
    expect(created.org).toBe(await cookieOrg(context));
    // @clerk/backend 3 read a version 2 token: its `o.rol` has no `org:` prefix, getAuth's orgRole has it again.
    expect(sessionTokenClaims(await context.cookies())).toMatchObject({ v: 2, o: { id: created.org, rol: "admin" } });
    expect(created.role).toBe("org:admin");

    await page.locator(".cl-organizationSwitcherTrigger").click();
    await page.locator(".cl-organizationSwitcherPreviewButton").first().click();
    await expect.poll(() => cookieOrg(context), { timeout: 15_000 }).not.toBe(created.org);
    await page.reload();
    const switched = await serverSees(page);
    expect(switched.org).toMatch(/^org_/);
    expect(switched.org).toBe(await cookieOrg(context));
    expect(switched.slug).not.toBe(created.slug);
  }, 60_000);

  // Cookies as they stood before the wait below, for the JavaScript-off document after expiry:
  // one minute's wait serves both tests.
  let beforeExpiry: Awaited<ReturnType<BrowserContext["storageState"]>>;

  it("keeps the session past the token's 60 s lifetime with JavaScript on: clerk-js refreshes the token", async () => {
    const before = await serverSees(page);
    beforeExpiry = await context.storageState();
    await page.waitForTimeout((TOKEN_TTL + CLOCK_SKEW + 1) * 1000);
    const documents: string[] = [];
    page.on("request", (r) => r.isNavigationRequest() && documents.push(r.url()));
    await page.reload();
    const after = await serverSees(page);
    expect(after.user).toBe(before.user);
    expect(after.org).toBe(before.org);
    // clerk-js fetched a new token before the old one ran out.
    expect(after.iat).toBeGreaterThan(before.iat);
    // Refreshed in the browser, so the document needed no handshake.
    expect(documents.filter((u) => u.includes("/handshake"))).toEqual([]);
  }, 120_000);

  it("answers a document GET after expiry with JavaScript off: through the handshake, back signed in", async () => {
    const before = await serverSees(page);
    // Past the copied token's lifetime and @clerk/backend's 5 s of clock skew, with no clerk-js to refresh it.
    const {
      context: noScript,
      page: plain,
      response,
      documents,
      copied,
    } = await openAfterExpiry(browser, beforeExpiry, `${appUrl}/`, CLOCK_SKEW);
    try {
      expect(response?.status()).toBe(200);
      expect(documents).toContainEqual(expect.stringMatching(`^${appUrl}/__clerk/v1/client/handshake\\?`));
      const after = await serverSees(plain);
      expect(after.user).toBe(before.user);
      expect(after.org).toBe(before.org);
      // A token minted by the handshake, not the expired copy.
      expect(after.iat).toBeGreaterThan(copied.iat);
    } finally {
      await noScript.close();
    }
  }, 60_000);

  it("signs out from <UserButton/>", async () => {
    await page.locator(".cl-userButtonTrigger").click();
    await page
      .getByRole("menuitem", { name: "Sign out" })
      .or(page.getByRole("button", { name: "Sign out" }))
      .click();
    await expect
      .poll(async () => (await page.reload(), (await serverSees(page)).user), { timeout: 15_000 })
      .toBe("signed out");
  }, 60_000);

  it("signs in with an email code", async () => {
    await page.goto(`${appUrl}/sign-in`);
    await page.getByLabel("Email address").fill("grace@example.com");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page
      .getByRole("link", { name: "Use another method" })
      .or(page.getByRole("button", { name: "Use another method" }))
      .click();
    await page.getByRole("button", { name: /Email code to grace@example\.com/ }).click();
    // One input-otp field, focused as the card opens.
    await page.getByLabel("Enter verification code").waitFor();
    await page.keyboard.type(CODE);
    await page.waitForURL(`${appUrl}/`);
    await expect.poll(async () => (await serverSees(page)).user).toMatch(/^user_/);
    await page.reload();
    expect((await serverSees(page)).user).toMatch(/^user_/);
  }, 60_000);
});
