import type { Browser, Page } from "@playwright/test";
import { backendApi, newTeam, uniqueEmail } from "../support/emulator-api";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";

// The whole team flow in local mode, with the real clerk-js against the emulator.
const bapi = (baseURL: string) => backendApi(baseURL, process.env.E2E_DATA_DIR!);

/**
 * An admin, signed in, on the members page of a new organization, once
 * clerk-js has made it the active one. Until then clerk-js is replacing the
 * session cookies (the client's new `__client_uat` can land before the token
 * that goes with it), and a form posted in between is taken as signed out.
 */
async function adminOnMembersPage(page: Page, baseURL: string, members = 0) {
  const team = await newTeam(bapi(baseURL), { members });
  await signInAs(page.context(), baseURL, team.admin.email);
  await page.goto(`/orgs/${team.org.slug}/members`);
  if (test.info().project.use.javaScriptEnabled !== false) {
    await page.waitForFunction(
      (id) => (window as unknown as { Clerk?: { organization?: { id: string } } }).Clerk?.organization?.id === id,
      team.org.id,
    );
  }
  return team;
}

async function inviteFromPage(page: Page, email: string, role: "Member" | "Admin") {
  const form = page.getByRole("form", { name: "Invite someone" });
  await form.getByLabel("Email address").fill(email);
  await form.getByLabel("Role").selectOption({ label: role });
  await form.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("invite-sent")).toContainText(email);
  return page.getByLabel(`Invitation link for ${email}`);
}

/** Another person's browser (JavaScript on), opening a link. */
async function openAsSomeoneElse(browser: Browser, url: string) {
  const other = await openGuardedContext(browser, { javaScriptEnabled: true });
  const page = await other.context.newPage();
  await page.goto(url);
  return { page, close: other.close };
}

test.describe("invitations with JavaScript @js", () => {
  test("invite, copy the link, and a new person signs up through it as a member with the invited role", async ({
    page,
    context,
    baseURL,
    browser,
  }) => {
    const team = await adminOnMembersPage(page, baseURL!);
    const newcomer = uniqueEmail("newcomer");
    const link = await inviteFromPage(page, newcomer, "Admin");
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: "Copy link" }).click();
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await link.inputValue());
    expect(copied).toMatch(/\/__clerk\/v1\/tickets\/accept\?ticket=/);

    const them = await openAsSomeoneElse(browser, copied);
    try {
      // Clerk's <SignUp/> took the ticket: the address is known and verified, only a password is asked.
      await expect(them.page).toHaveURL(/\/sign-up/);
      await them.page.getByLabel("Password", { exact: true }).fill("a-new-password-1");
      await them.page.getByRole("button", { name: "Continue", exact: true }).click();
      // (Clerk's screen loads clerk-js, then redeems the ticket: on a busy 2-core machine that can take 10 s.)
      await expect(them.page).toHaveURL(/\/orgs/, { timeout: 30_000 });
      await them.page.goto(`/orgs/${team.org.slug}`);
      await expect(them.page.getByTestId("org-role")).toHaveText("Admin");
      // The switcher lists the new organization.
      await them.page.getByTestId("org-switcher-trigger").click();
      await expect(them.page.getByTestId("org-switcher-panel")).toContainText(team.org.name);
    } finally {
      await them.close();
    }

    // The admin's members page now lists them, and the invitation is no longer pending.
    await page.reload();
    await expect(page.getByRole("list", { name: `Members of ${team.org.name}` })).toContainText(newcomer);
    await expect(page.getByTestId("pending-invitation")).toHaveCount(0);
  });

  test("someone with an account accepts through the link and is signed in as a member", async ({
    page,
    baseURL,
    browser,
  }) => {
    const team = await adminOnMembersPage(page, baseURL!);
    const existing = await newTeam(bapi(baseURL!));
    const link = await inviteFromPage(page, existing.admin.email, "Member");

    const them = await openAsSomeoneElse(browser, await link.inputValue());
    try {
      // Clerk's <SignIn/> redeems the ticket by itself: no password asked.
      // (Clerk's screen loads clerk-js, then redeems the ticket: on a busy 2-core machine that can take 10 s.)
      await expect(them.page).toHaveURL(/\/orgs/, { timeout: 30_000 });
      await them.page.goto(`/orgs/${team.org.slug}`);
      await expect(them.page.getByTestId("org-role")).toHaveText("Member");
    } finally {
      await them.close();
    }
  });

  test("a revoked invitation's link shows Clerk's error", async ({ page, baseURL, browser }) => {
    await adminOnMembersPage(page, baseURL!);
    const invitee = uniqueEmail("revoked");
    const url = await (await inviteFromPage(page, invitee, "Member")).inputValue();
    await page.getByRole("button", { name: `Revoke the invitation to ${invitee}` }).click();
    await expect(page.getByTestId("invitation-revoked")).toContainText(invitee);
    await expect(page.getByTestId("pending-invitation")).toHaveCount(0);
    await expectDeadLink(browser, url);
  });

  test("change a role and remove a member in Clerk's OrganizationProfile; the app's pages agree", async ({
    page,
    baseURL,
    browser,
  }) => {
    const team = await adminOnMembersPage(page, baseURL!, 2);
    const [promoted, removed] = team.members as [(typeof team.members)[0], (typeof team.members)[0]];
    await page.goto(`/orgs/${team.org.slug}/settings`);
    const profile = page.locator(".cl-organizationProfile-root");
    await profile.getByRole("button", { name: "Members" }).click();
    const row = (email: string) => profile.locator("tr", { hasText: email });

    // Clerk's role picker: the row's role button opens a list of roles (plain text, not ARIA options).
    await row(promoted.email).getByRole("button", { name: "Member" }).click();
    await row(promoted.email).getByText("Admin", { exact: true }).click();
    await expect(row(promoted.email).getByRole("button", { name: "Admin" })).toBeVisible();

    // The row's last cell holds its actions menu.
    await row(removed.email).locator("td").last().getByRole("button").click();
    await page.getByText("Remove member", { exact: true }).click();
    await expect(row(removed.email)).toHaveCount(0);

    // The app's members page shows the same: a second admin, and no removed member.
    await page.goto(`/orgs/${team.org.slug}/members`);
    const list = page.getByRole("list", { name: `Members of ${team.org.name}` });
    await expect(list.locator("li", { hasText: promoted.email })).toContainText("Admin");
    await expect(list).not.toContainText(removed.email);

    // The removed member no longer sees the organization, in its page or their switcher.
    const them = await openGuardedContext(browser, { javaScriptEnabled: true });
    try {
      await signInAs(them.context, baseURL!, removed.email);
      const theirs = await them.context.newPage();
      const res = await theirs.goto(`/orgs/${team.org.slug}`);
      expect(res?.status()).toBe(404);
      await theirs.goto("/orgs");
      await expect(theirs.getByRole("main")).not.toContainText(team.org.name);
    } finally {
      await them.close();
    }
  });
});

test.describe("invitations without JavaScript @nojs", () => {
  test("revoke with the plain form; the link then shows Clerk's error", async ({ page, baseURL, browser }) => {
    await adminOnMembersPage(page, baseURL!);
    const invitee = uniqueEmail("nojs");
    const link = await inviteFromPage(page, invitee, "Member");
    // Without JavaScript the link is in a read-only field, to select and copy.
    const url = await link.inputValue();
    await expect(page.getByRole("button", { name: "Copy link" })).toHaveCount(0);
    await page.getByRole("button", { name: `Revoke the invitation to ${invitee}` }).click();
    await expect(page.getByTestId("invitation-revoked")).toContainText(invitee);
    await expect(page.getByTestId("pending-invitation")).toHaveCount(0);
    await expectDeadLink(browser, url);
  });
});

/** Opened in a browser with JavaScript, a spent link lands on Clerk's form with Clerk's error, and signs no one in. */
async function expectDeadLink(browser: Browser, url: string) {
  const them = await openAsSomeoneElse(browser, url);
  try {
    await expect(them.page.locator(".cl-alert")).toContainText("This invitation has been revoked");
    await expect(them.page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
  } finally {
    await them.close();
  }
}
