import { createClerkClient } from "@clerk/backend";
import type { Page } from "@playwright/test";
import { expect, it } from "vitest";
import { patchInstance, uniqueEmail } from "../../testing";
import { DEFAULT_SETTINGS } from "../../src/settings";
import { browserAppForTests } from "../support/browser-app";

// Session tasks as Core 3's clerk-js (6, with @clerk/ui 1, from the Core 3 fixture) in Chromium meets
// them. On an instance that forces an organization (`organization_settings.force_organization_selection`),
// <SignIn/> signs a person without an organization in to a pending session, continues to its
// choose-organization task, and <TaskChooseOrganization/>'s form makes the organization and chooses
// it, after which the session is active in it. On one that requires multi-factor
// (`user_settings.sign_up.mfa.required`), <TaskSetupMFA/> adds a phone number for SMS codes. As Clerk's
// own specs drive them (their sessionTask page object, session-tasks-setup-mfa).

const PASSWORD = "session-tasks-browser-password";
const app = browserAppForTests({
  emulator: { instance: { ...DEFAULT_SETTINGS.instance, forceOrganizationSelection: true } },
  // The app's pages, "/" among them (where <SignIn/> goes on to after its task, as in Clerk's own specs).
  routes: (express) => express.get(/^\/(app(\/.*)?)?$/, (_req, res) => void res.type("html").send(appPage())),
});

/** A page of the app: <SignIn/> under /app/sign-in (path routing: its task is a path under it), else clerk-js alone. */
function appPage(): string {
  return `<!doctype html><html><head>
    <script src="/__clerk/npm/@clerk/ui@1/dist/ui.browser.js"></script>
    <script data-clerk-publishable-key="${app.publishableKey}" data-clerk-proxy-url="${app.origin}/__clerk"
      src="/__clerk/npm/@clerk/clerk-js@6/dist/clerk.browser.js"></script></head>
    <body><div id="sign-in"></div><script>
      window.addEventListener("load", async () => {
        await window.Clerk.load({
          ui: { ClerkUI: window.__internal_ClerkUICtor },
          signInUrl: "/app/sign-in",
        });
        if (location.pathname.startsWith("/app/sign-in"))
          window.Clerk.mountSignIn(document.getElementById("sign-in"), { path: "/app/sign-in", routing: "path" });
        window.appReady = true;
      });
    </script></body></html>`;
}

/** Signs in through <SignIn/> at /app/sign-in with an email address and a password. */
async function signInWithPassword(page: Page, email: string) {
  await page.goto(`${app.origin}/app/sign-in`);
  await page.waitForFunction(() => (window as unknown as { appReady?: boolean }).appReady === true);
  await page.locator("input[name=identifier]").fill(email);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
}

/** Waits for the page at `url` to have loaded clerk-js, then for its session to have no task left. */
async function resolvedAt(page: Page, url: string | RegExp) {
  await page.waitForURL(url);
  await page.waitForFunction(() => (window as unknown as { appReady?: boolean }).appReady === true);
  await page.waitForFunction(() => {
    const session = (window as unknown as { Clerk: { session?: { currentTask?: unknown; status: string } } }).Clerk
      .session;
    return session && !session.currentTask && session.status === "active";
  });
}

type SessionView = { status: string; tasks: { key: string }[] | null; org: string | null; sts: string | null };

/** The page's session as clerk-js holds it, and its token's `sts`. */
const sessionIn = (page: Page): Promise<SessionView | null> =>
  page.evaluate(async () => {
    const clerk = (window as unknown as { Clerk: any }).Clerk; // eslint-disable-line @typescript-eslint/no-explicit-any -- clerk-js's session resource
    const session = clerk.session;
    if (!session) return null;
    const jwt: string | null = await session.getToken({ skipCache: true });
    const sts = jwt ? (JSON.parse(atob(jwt.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).sts as string) : null;
    return {
      status: session.status,
      tasks: session.tasks ?? null,
      org: session.lastActiveOrganizationId ?? null,
      sts,
    };
  });

it("<SignIn/> continues to the choose-organization task; making an organization there makes the session active in it", async () => {
  const backend = createClerkClient({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
  const email = uniqueEmail("task-browser");
  const user = await backend.users.createUser({ emailAddress: [email], password: PASSWORD });

  await app.inFreshBrowser(async (page) => {
    await signInWithPassword(page, email);

    // Signed in, pending: <SignIn/> shows the task under its own path (…/create/tasks/… with no sign-up URL named).
    await page.waitForURL(/\/app\/sign-in\/.*tasks\/choose-organization$/);
    await page.waitForFunction(() => (window as unknown as { appReady?: boolean }).appReady === true);
    expect(await sessionIn(page)).toEqual({
      status: "pending",
      tasks: [{ key: "choose-organization" }],
      org: null,
      sts: "pending",
    });

    // <TaskChooseOrganization/>: someone without an organization is asked to make one.
    const create = page.getByRole("button", { name: /continue/i });
    await expect.poll(() => create.isVisible(), { timeout: 15_000 }).toBe(true);
    await page.locator("input[name=name]").fill("Tasked Org");
    await page.locator("input[name=slug]").fill(`tasked-${Date.now()}`);
    await create.click();

    // Resolved: <SignIn/> goes on to after sign-in, and the session is active in the new organization.
    await resolvedAt(page, `${app.origin}/`);
    const after = await sessionIn(page);
    expect(after).toMatchObject({ status: "active", tasks: null, sts: "active" });
    const memberships = await backend.users.getOrganizationMembershipList({ userId: user.id });
    expect(memberships.data.map((m) => m.organization.id)).toEqual([after!.org]);
  });
});

it("<SignIn/> continues to the setup-mfa task; a phone number verified there for SMS codes makes the session active", async () => {
  const backend = createClerkClient({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
  const email = uniqueEmail("mfa-task-browser");
  const user = await backend.users.createUser({ emailAddress: [email], password: PASSWORD });
  const required = { user_settings: { sign_up: { mfa: { required: true } } } };
  expect(
    (await patchInstance(app.origin, { ...required, organization_settings: { force_organization_selection: false } }))
      .status,
  ).toBe(200);
  try {
    await app.inFreshBrowser(async (page) => {
      await signInWithPassword(page, email);
      await page.waitForURL(/\/app\/sign-in\/.*tasks\/setup-mfa$/);
      await page.waitForFunction(() => (window as unknown as { appReady?: boolean }).appReady === true);
      expect(await sessionIn(page)).toMatchObject({ status: "pending", tasks: [{ key: "setup-mfa" }], sts: "pending" });

      // <TaskSetupMFA/>: SMS codes, a new number (Clerk's test numbers are never texted; any code 424242 verifies).
      await page.getByText(/set up two-step verification/i).waitFor({ state: "visible" });
      await page.getByRole("button", { name: /sms code/i }).click();
      await page.locator("input[name=phoneNumber]").fill("+15555550123");
      await page.getByRole("button", { name: /continue/i }).click();
      await page.getByLabel("Enter verification code").fill("424242");
      await page.getByText(/save these backup codes/i).waitFor({ state: "visible" });
      await page.getByRole("button", { name: "Continue", exact: true }).click();

      await resolvedAt(page, `${app.origin}/`);
      expect(await sessionIn(page)).toMatchObject({ status: "active", tasks: null, sts: "active" });
    });
    const reloaded = await backend.users.getUser(user.id);
    expect(reloaded.twoFactorEnabled).toBe(true);
    expect(reloaded.phoneNumbers.map((p) => [p.phoneNumber, p.reservedForSecondFactor])).toEqual([
      ["+15555550123", true],
    ]);
  } finally {
    await patchInstance(app.origin, {
      user_settings: { sign_up: { mfa: { required: false } } },
      organization_settings: { force_organization_selection: true },
    });
  }
});
