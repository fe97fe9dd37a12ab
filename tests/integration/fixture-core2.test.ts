import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "clerk-emulator";
import { contractBreaches, readAnswers } from "clerk-emulator/contract";
import { openAfterExpiry, sessionTokenClaims } from "../support/expired-session";
import { startFixture, type RunningFixture } from "../support/fixture-app";

// Issue 40's Core 2 proof: Clerk's Remix quickstart (@clerk/remix 4, clerk-js 5),
// built here from tests/fixtures/core2, behind the one /__clerk proxy rule, against
// `npm run emulator` in its own process, driven in real Chromium.
// Clerk's own session token lifetime (the emulator's default).
const TOKEN_TTL = 60;
// @clerk/backend accepts a token this many seconds past its exp.
const CLOCK_SKEW = 5;

let fixture: RunningFixture;
let origin = "";
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** What the index route's loader saw, as it printed it. */
async function loaderSees(target: Page) {
  const text = (id: string) => target.locator(`#${id}`).textContent();
  return {
    user: await text("user"),
    org: await text("org"),
    slug: await text("slug"),
    role: await text("role"),
    permissions: await text("permissions"),
  };
}

async function issuedAt(target: Page) {
  return Number(await target.locator("#iat").textContent());
}

async function untilLoaderSees(target: Page, id: string, value: string) {
  await target.locator(`#${id}`, { hasText: new RegExp(`^${value}$`) }).waitFor({ timeout: 20_000 });
}

beforeAll(async () => {
  // Built as the quickstart's `npm run build`, behind its proxy rule, with the printed .env lines
  // (tests/support/fixture-app.ts).
  fixture = await startFixture("core2");
  ({ appUrl: origin, browser } = fixture);
  context = await fixture.newContext();
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  // Every process group, whatever happened above.
  await fixture?.stop();
});

describe("Clerk's Remix quickstart (Core 2) against npm run emulator", () => {
  let orgBefore = "";
  // Cookies as they stood before the wait below, for the JavaScript-off document after expiry:
  // one minute's wait serves both tests.
  let beforeExpiry: Awaited<ReturnType<BrowserContext["storageState"]>>;

  it("signs in with a password in <SignIn/>, and the loader's getAuth sees the user", async () => {
    await page.goto(origin);
    expect((await loaderSees(page)).user).toBe("none");
    await page.locator("input[name=identifier]").fill("ada@example.com");
    await page.locator(".cl-formButtonPrimary").click();
    await page.locator("input[name=password]").fill(DEMO_PASSWORD);
    await page.locator(".cl-formButtonPrimary").click();
    await untilLoaderSees(page, "user", "user_seed_ada");
    await page.reload();
    const seen = await loaderSees(page);
    expect(seen.user).toBe("user_seed_ada");
    orgBefore = seen.org!;
  }, 60_000);

  it("switches organization in <OrganizationSwitcher/>, and the loader sees its id and slug", async () => {
    const target =
      orgBefore === "org_seed_difference"
        ? { id: "org_seed_engines", name: "Analytical Engines", slug: "analytical-engines", role: "org:admin" }
        : { id: "org_seed_difference", name: "Difference & Co", slug: "difference-co", role: "org:member" };
    await page.locator(".cl-organizationSwitcherTrigger").click();
    await page.locator(".cl-organizationSwitcherPreviewButton", { hasText: target.name }).click();
    await untilLoaderSees(page, "org", target.id);
    await page.reload();
    // @clerk/backend 2 read them from a version 2 token: `o.id`, `o.slg`, and `o.rol` without its `org:` prefix.
    const claims = sessionTokenClaims(await page.context().cookies());
    expect(claims).toMatchObject({ v: 2, o: { id: target.id, slg: target.slug, rol: target.role.slice(4) } });
    expect(await loaderSees(page)).toEqual({
      user: "user_seed_ada",
      org: target.id,
      slug: target.slug,
      role: target.role,
      // The seeded roles have no custom permissions (system ones are never in a token).
      permissions: "[]",
    });
  }, 60_000);

  it("keeps the session past the token's 60 s lifetime with JavaScript on: clerk-js refreshes the token", async () => {
    const before = await loaderSees(page);
    const iat = await issuedAt(page);
    beforeExpiry = await context.storageState();
    await page.waitForTimeout((TOKEN_TTL + CLOCK_SKEW + 1) * 1000);
    const documents: string[] = [];
    page.on("request", (r) => r.isNavigationRequest() && documents.push(r.url()));
    await page.reload();
    expect(await loaderSees(page)).toEqual(before);
    // clerk-js fetched a new token before the old one ran out.
    expect(await issuedAt(page)).toBeGreaterThan(iat);
    // Refreshed in the browser, so the document needed no handshake.
    expect(documents.filter((u) => u.includes("/handshake"))).toEqual([]);
  }, 120_000);

  it("answers a document GET after expiry with JavaScript off: through the handshake, back signed in", async () => {
    const before = await loaderSees(page);
    const {
      context: noScript,
      page: plain,
      response,
      documents,
      copied,
    } = await openAfterExpiry(browser, beforeExpiry, origin, CLOCK_SKEW);
    try {
      expect(response?.status()).toBe(200);
      expect(documents).toContainEqual(expect.stringMatching(`^${origin}/__clerk/v1/client/handshake\\?`));
      expect(await loaderSees(plain)).toEqual(before);
      // A token minted by the handshake, not the expired copy.
      expect(await issuedAt(plain)).toBeGreaterThan(copied.iat);
    } finally {
      await noScript.close();
    }
  }, 60_000);

  it("signs out in <UserButton/>, and the loader then sees no user", async () => {
    await page.reload();
    await page.locator(".cl-userButtonTrigger").click();
    await page.locator(".cl-userButtonPopoverActionButton__signOut").click();
    await untilLoaderSees(page, "user", "none");
    await page.reload();
    expect((await loaderSees(page)).user).toBe("none");
  }, 60_000);

  it("answered every call as Clerk's OpenAPI description says, and reached nothing beyond loopback", () => {
    const dir = process.env.CLERK_EMULATOR_RECORD_DIR!;
    const answers = readdirSync(dir).flatMap((name) => readAnswers(join(dir, name)).answers);
    // The flows above went through both APIs: a check of nothing would prove nothing.
    expect(answers.some((a) => a.api === "fapi" && a.path === "/v1/client/sign_ins")).toBe(true);
    expect(answers.some((a) => a.api === "fapi" && a.path.includes("/touch"))).toBe(true);
    expect(contractBreaches(answers)).toEqual([]);
    expect(fixture.offLoopback).toEqual([]);
  });
});
