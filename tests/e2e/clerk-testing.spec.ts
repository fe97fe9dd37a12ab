import { createClerkClient } from "@clerk/backend";
import { clerk, clerkSetup, setupClerkTestingToken } from "@clerk/testing/playwright";
import { emulatorPublishableKey } from "clerk-emulator";
import { emulatorSecretKey } from "../support/emulator-api";
import { expect, test } from "./fixtures";

/*
 * A suite as a Clerk app's team writes it with Clerk's own helpers
 * (@clerk/testing), unchanged, against local mode. The only difference from
 * testing against Clerk is the environment: CLERK_API_URL names the
 * emulator's Backend API, and the Frontend API is the app's own proxy path.
 * (Our fixtures' `test` adds the loopback-only network guard.)
 * The helpers drive clerk-js, which this app loads on Clerk's own screens
 * (and before a session token expires), not on every page: so they run on
 * the sign-in page, and on the profile page once signed in.
 */
const PASSWORD = "helpers-password-1";
let people: { password: string; emailCode: string; ticketUserId: string };

/** Clerk's Backend SDK, pointed at the emulator by the same environment. */
const backendClient = () =>
  createClerkClient({ secretKey: process.env.CLERK_SECRET_KEY, apiUrl: process.env.CLERK_API_URL });

test.beforeAll(async ({}, workerInfo) => {
  const baseURL = workerInfo.project.use.baseURL!;
  // What a Clerk app keeps in .env (clerkSetup would read it from there).
  process.env.CLERK_PUBLISHABLE_KEY = emulatorPublishableKey();
  process.env.CLERK_SECRET_KEY = emulatorSecretKey(process.env.E2E_DATA_DIR!);
  process.env.CLERK_API_URL = `${baseURL}/__clerk/api`;
  await clerkSetup({ dotenv: false, frontendApiUrl: `${new URL(baseURL).host}/__clerk` });

  // Test users, made with Clerk's Backend SDK as a suite's setup would.
  const backend = backendClient();
  const stamp = `${Date.now().toString(36)}${process.pid}`;
  const make = (name: string) =>
    backend.users.createUser({ emailAddress: [`${name}.${stamp}@example.com`], password: PASSWORD, firstName: name });
  const [withPassword, withCode, withTicket] = await Promise.all([
    make("pat"),
    // A test address: the code 424242 always verifies it, as in Clerk's test mode.
    make("casey+clerk_test"),
    make("tia"),
  ]);
  people = {
    password: withPassword.emailAddresses[0]!.emailAddress,
    emailCode: withCode.emailAddresses[0]!.emailAddress,
    ticketUserId: withTicket.id,
  };
});

test.describe("Clerk's test helpers against the emulator @js", () => {
  test.beforeEach(async ({ page }) => {
    await setupClerkTestingToken({ page });
    await page.goto("/sign-in");
    await clerk.loaded({ page });
  });

  test("clerk.signIn with a password, then clerk.signOut", async ({ page }) => {
    await clerk.signIn({
      page,
      signInParams: { strategy: "password", identifier: people.password, password: PASSWORD },
    });
    await page.goto("/orgs");
    await expect(page.getByRole("heading", { name: "Your organizations" })).toBeVisible();

    await page.goto("/user");
    await clerk.signOut({ page });
    await page.goto("/orgs");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("clerk.signIn with an email code, for a +clerk_test address", async ({ page }) => {
    await clerk.signIn({ page, signInParams: { strategy: "email_code", identifier: people.emailCode } });
    expect(
      await page.evaluate(
        () =>
          (window as unknown as { Clerk: { user: { primaryEmailAddress: { emailAddress: string } } } }).Clerk.user
            .primaryEmailAddress.emailAddress,
      ),
    ).toBe(people.emailCode);
    await page.goto("/orgs");
    await expect(page.getByRole("heading", { name: "Your organizations" })).toBeVisible();
  });

  test("clerk.signIn with a ticket from the Backend API's sign-in tokens", async ({ page }) => {
    const token = await backendClient().signInTokens.createSignInToken({
      userId: people.ticketUserId,
      expiresInSeconds: 300,
    });
    await clerk.signIn({ page, signInParams: { strategy: "ticket", ticket: token.token } });
    await page.goto("/orgs");
    await expect(page.getByRole("heading", { name: "Your organizations" })).toBeVisible();
    // A ticket works once.
    await page.goto("/user");
    await clerk.signOut({ page });
    await expect(clerk.signIn({ page, signInParams: { strategy: "ticket", ticket: token.token } })).rejects.toThrow(
      /already been used/,
    );
  });
});
