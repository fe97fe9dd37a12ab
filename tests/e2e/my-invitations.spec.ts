import type { Page } from "@playwright/test";
import { backendApi, newPerson, newTeam } from "../support/emulator-api";
import { expect, signInAs, test } from "./fixtures";

// Someone who already has an account is invited: the invitation waits for
// them in the switcher and on /orgs, and Accept takes them in.
const bapi = (baseURL: string) => backendApi(baseURL, process.env.E2E_DATA_DIR!);

async function invitedPerson(baseURL: string, role = "org:member") {
  const api = bapi(baseURL);
  const team = await newTeam(api);
  const person = await newPerson(api, "invitee");
  const invitation = await api("POST", `/v1/organizations/${team.org.id}/invitations`, {
    email_address: person.email,
    role,
    inviter_user_id: team.admin.id,
  });
  expect(invitation.status).toBe(200);
  return { team, person, invitationId: invitation.body.id as string };
}

async function invitationStatus(baseURL: string, orgId: string, invitationId: string) {
  const reply = await bapi(baseURL)("GET", `/v1/organizations/${orgId}/invitations/${invitationId}`);
  return reply.body.status as string;
}

/** Signed in, once clerk-js holds the session (before that, clerk-js is still replacing the session cookies). */
async function signedIn(page: Page, baseURL: string, email: string, path: string) {
  await signInAs(page.context(), baseURL, email);
  await page.goto(path);
  if (test.info().project.use.javaScriptEnabled !== false) {
    await expect
      .poll(() => page.evaluate(() => Boolean((window as unknown as { Clerk?: { user?: unknown } }).Clerk?.user)))
      .toBe(true);
  }
}

test.describe("invitations waiting for a signed-in person @js", () => {
  test("the switcher lists the invitation; Accept makes the organization active and opens it", async ({
    page,
    baseURL,
  }) => {
    const { team, person, invitationId } = await invitedPerson(baseURL!, "org:admin");
    await signedIn(page, baseURL!, person.email, "/");

    await page.getByTestId("org-switcher-trigger").click();
    const item = page.getByTestId("switcher-invitation");
    await expect(item).toContainText(team.org.name);
    await expect(item).toContainText("Invited as admin");
    await item.getByRole("button", { name: `Accept the invitation to ${team.org.name}` }).click();

    await expect(page).toHaveURL(new RegExp(`/orgs/${team.org.slug}$`));
    await expect(page.getByTestId("org-role")).toHaveText("Admin");
    // Clerk's own accept (the Frontend API), and the session's active organization is this one.
    expect(await invitationStatus(baseURL!, team.org.id, invitationId)).toBe("accepted");
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as { Clerk: { organization?: { id: string } } }).Clerk.organization?.id),
      )
      .toBe(team.org.id);
    // No longer offered; the organization is among theirs.
    await page.getByTestId("org-switcher-trigger").click();
    const panel = page.getByTestId("org-switcher-panel");
    await expect(panel).toContainText(team.org.name);
    await expect(panel.getByTestId("switcher-invitation")).toHaveCount(0);
  });
});

test.describe("invitations waiting for a signed-in person, without JavaScript @nojs", () => {
  test("/orgs lists the invitation; Accept makes them a member and opens the organization", async ({
    page,
    baseURL,
  }) => {
    const { team, person, invitationId } = await invitedPerson(baseURL!);
    await signedIn(page, baseURL!, person.email, "/orgs");

    const card = page.getByTestId("invitation");
    await expect(card).toContainText(team.org.name);
    await expect(card).toContainText("You are invited as member");
    await card.getByRole("button", { name: `Accept the invitation to ${team.org.name}` }).click();

    await expect(page).toHaveURL(new RegExp(`/orgs/${team.org.slug}$`));
    await expect(page.getByTestId("org-role")).toHaveText("Member");
    // The Backend API cannot accept for someone: the membership was made, the used invitation is no longer pending.
    expect(await invitationStatus(baseURL!, team.org.id, invitationId)).toBe("revoked");
    await page.goto("/orgs");
    await expect(page.getByTestId("invitation")).toHaveCount(0);
    await expect(page.getByTestId("org-choice")).toContainText(team.org.name);
  });

  test("an invitation revoked while the page was open: Accept says so and nothing changes", async ({
    page,
    baseURL,
  }) => {
    const { team, person, invitationId } = await invitedPerson(baseURL!);
    await signedIn(page, baseURL!, person.email, "/orgs");
    await expect(page.getByTestId("invitation")).toContainText(team.org.name);
    const revoked = await bapi(baseURL!)(
      "POST",
      `/v1/organizations/${team.org.id}/invitations/${invitationId}/revoke`,
      {},
    );
    expect(revoked.status).toBe(200);

    await page.getByRole("button", { name: `Accept the invitation to ${team.org.name}` }).click();
    await expect(page.getByTestId("invitation-error")).toContainText("no longer open");
    await expect(page.getByTestId("invitation")).toHaveCount(0);
    const memberships = await bapi(baseURL!)("GET", `/v1/users/${person.id}/organization_memberships`);
    expect(memberships.body.data).toHaveLength(0);
  });
});
