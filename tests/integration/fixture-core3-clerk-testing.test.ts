import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFixture, type RunningFixture } from "../support/fixture-app";
import { ROOT } from "../support/server";

// Clerk's test helpers for Core 3, @clerk/testing 2 (tests/fixtures/core3's), used unchanged on the
// Core 3 fixture against `npm run emulator`, as that app's team would: clerkSetup in a setup step, then
// setupClerkTestingToken and clerk.signIn in Playwright. The only difference from testing against Clerk
// is the environment (CLERK_API_URL names the emulator; the Frontend API is the app's proxy path).

const core3Require = createRequire(join(ROOT, "tests/fixtures/core3/package.json"));
const PASSWORD = "helpers-two-password-1";

type SignInParams =
  { strategy: "password"; identifier: string; password: string } | { strategy: "email_code"; identifier: string };
type Helpers = {
  clerkSetup: (options: { dotenv?: boolean; frontendApiUrl?: string }) => Promise<void>;
  setupClerkTestingToken: (params: { page: Page }) => Promise<void>;
  clerk: {
    loaded: (params: { page: Page }) => Promise<void>;
    signIn: (params: { page: Page; signInParams: SignInParams }) => Promise<void>;
    signOut: (params: { page: Page }) => Promise<void>;
  };
};
type BackendClient = {
  users: {
    createUser: (params: { emailAddress: string[]; password: string }) => Promise<{ id: string }>;
  };
};

let fixture: RunningFixture | undefined;
let helpers: Helpers;
const people = { password: { email: "", id: "" }, emailCode: { email: "", id: "" } };
const savedEnv = { ...process.env };

beforeAll(async () => {
  // Its exports list no package.json: read it beside the package's entry.
  const entry = core3Require.resolve("@clerk/testing/playwright");
  const manifest = join(entry.slice(0, entry.lastIndexOf("/dist/")), "package.json");
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  expect(version).toMatch(/^2\./);
  helpers = core3Require("@clerk/testing/playwright") as Helpers;
  fixture = await startFixture("core3");

  // What the app keeps in .env, as the emulator printed it; clerkSetup reads it from the environment.
  process.env.CLERK_PUBLISHABLE_KEY = fixture.env.CLERK_PUBLISHABLE_KEY;
  process.env.CLERK_SECRET_KEY = fixture.env.CLERK_SECRET_KEY;
  process.env.CLERK_API_URL = fixture.env.CLERK_API_URL;
  delete process.env.CLERK_TESTING_TOKEN;
  // The publishable key names clerk.emulator.invalid: the browser's Frontend API is the app's proxy.
  await helpers.clerkSetup({ dotenv: false, frontendApiUrl: `${new URL(fixture.appUrl).host}/__clerk` });
  // A testing token from the emulator's Backend API (POST /v1/testing_tokens), in the form it issues.
  expect(process.env.CLERK_TESTING_TOKEN).toMatch(/^\d+-[0-9a-f]{32}$/);

  // Test users, made with the fixture's @clerk/backend 3 as a suite's setup would.
  const { createClerkClient } = core3Require("@clerk/backend") as {
    createClerkClient: (options: { secretKey?: string; apiUrl?: string }) => BackendClient;
  };
  const backend = createClerkClient({ secretKey: process.env.CLERK_SECRET_KEY, apiUrl: process.env.CLERK_API_URL });
  const stamp = Date.now().toString(36);
  for (const [key, name] of [
    ["password", "pat"],
    // A test address: the code 424242 always verifies it, as in Clerk's test mode (clerk.signIn requires one).
    ["emailCode", "casey+clerk_test"],
  ] as const) {
    const email = `${name}.${stamp}@example.com`;
    const user = await backend.users.createUser({ emailAddress: [email], password: PASSWORD });
    people[key] = { email, id: user.id };
  }
}, 90_000);

afterAll(async () => {
  await fixture?.stop();
  for (const key of ["CLERK_PUBLISHABLE_KEY", "CLERK_SECRET_KEY", "CLERK_API_URL", "CLERK_FAPI", "CLERK_TESTING_TOKEN"])
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
});

/** Who the home page's loader saw, from the session token of the document request (getAuth). */
async function loaderUser(page: Page): Promise<string> {
  return ((await page.getByTestId("user").textContent()) ?? "").trim();
}

describe("@clerk/testing 2 (Core 3) on the Core 3 fixture against the standalone emulator", () => {
  let context: BrowserContext;
  let page: Page;
  /** The API version each Frontend API call named. */
  let versions: string[];

  beforeEach(async () => {
    await context?.close();
    context = await fixture!.newContext();
    page = await context.newPage();
    versions = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith("/__clerk/v1/")) versions.push(url.searchParams.get("__clerk_api_version") ?? "none");
    });
    await helpers.setupClerkTestingToken({ page });
    await page.goto(`${fixture!.appUrl}/`);
    await helpers.clerk.loaded({ page });
    expect(await loaderUser(page)).toBe("signed out");
  });
  afterAll(() => context?.close());

  it("clerk.signIn with a password: the loader sees the user; clerk.signOut ends it", async () => {
    await helpers.clerk.signIn({
      page,
      signInParams: { strategy: "password", identifier: people.password.email, password: PASSWORD },
    });
    await page.reload();
    expect(await loaderUser(page)).toBe(people.password.id);
    // clerk-js 6.40 names Frontend API version 2026-08-20 in every call (packages/clerk-emulator/GUIDE.md, API versions).
    expect(versions.length).toBeGreaterThan(2);
    expect(new Set(versions)).toEqual(new Set(["2026-08-20"]));

    await helpers.clerk.signOut({ page });
    await page.reload();
    expect(await loaderUser(page)).toBe("signed out");
  }, 60_000);

  it("clerk.signIn with an email code, for a +clerk_test address: the loader sees the user", async () => {
    await helpers.clerk.signIn({ page, signInParams: { strategy: "email_code", identifier: people.emailCode.email } });
    await page.reload();
    expect(await loaderUser(page)).toBe(people.emailCode.id);
  }, 60_000);

  it("clerk.signIn with a wrong password fails with Clerk's message, and nobody is signed in", async () => {
    await expect(
      helpers.clerk.signIn({
        page,
        signInParams: { strategy: "password", identifier: people.password.email, password: "not-the-password" },
      }),
    ).rejects.toThrow(/Clerk: Failed to sign in: Password is incorrect/);
    await page.reload();
    expect(await loaderUser(page)).toBe("signed out");
  }, 60_000);
});
