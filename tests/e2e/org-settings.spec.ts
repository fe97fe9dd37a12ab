import type { Page } from "@playwright/test";
import { backendApi, newTeam } from "../support/emulator-api";
import { confirmInClerkForm, expect, signInAs, test } from "./fixtures";
import { openSettings, profileOf, saveInClerkForm } from "./organization-profile";

// What an organization's people do in Clerk's <OrganizationProfile/> (the
// app's Settings page), with the real clerk-js against the emulator, and how
// the app follows: header, address, /orgs and the switcher. Each test makes
// its own organization and people, since these change them.

type Bapi = ReturnType<typeof backendApi>;
const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/** A new organization with an admin and one member, and a unique word for the names and slugs a test gives it. */
async function newTeamOfTwo(bapi: Bapi) {
  const team = await newTeam(bapi, { members: 1 });
  return { ...team, member: team.members[0]!, id: unique() };
}

async function switcherNames(page: Page) {
  await page.getByTestId("org-switcher-trigger").click();
  const panel = page.getByTestId("org-switcher-panel");
  await expect(panel.getByRole("link").first()).toBeVisible();
  const names = await panel.getByRole("link").allInnerTexts();
  await page.keyboard.press("Escape");
  return names.join("\n");
}

test.describe("an organization's settings in Clerk's OrganizationProfile @js", () => {
  test("a rename shows in the header and the switcher at once", async ({ page, context, baseURL }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const { org, admin, id } = await newTeamOfTwo(bapi);
    await signInAs(context, baseURL!, admin.email);
    const profile = await openSettings(page, org.slug);
    expect(await switcherNames(page)).toContain(org.name);

    await profile.getByRole("button", { name: "Update profile" }).click();
    const renamed = await saveInClerkForm(page, org.id, profile.getByLabel("Name"), `Renamed ${id}`);
    expect(renamed.status()).toBe(200);

    await expect(page.getByTestId("org-name")).toHaveText(`Renamed ${id}`);
    await expect(page.getByTestId("org-switcher-trigger")).toHaveAccessibleName(`Renamed ${id}, switch organization`);
    expect(await switcherNames(page)).toContain(`Renamed ${id}`);
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).body.name).toBe(`Renamed ${id}`);
    await page.goto(`/orgs/${org.slug}`);
    await expect(page.getByTestId("org-name")).toHaveText(`Renamed ${id}`);
    await expect(page).toHaveTitle(`Renamed ${id} — Teamwork`);
  });

  test("a new slug moves the pages to the new address; the old one is a 404, and a taken slug is refused", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const { org, admin, id } = await newTeamOfTwo(bapi);
    await signInAs(context, baseURL!, admin.email);
    const profile = await openSettings(page, org.slug);

    // A seeded organization's slug is taken: Clerk's error, under the field, and what was typed stays.
    await profile.getByRole("button", { name: "Update profile" }).click();
    const slug = profile.getByLabel("Slug");
    const refused = await saveInClerkForm(page, org.id, slug, "analytical-engines");
    expect(refused.status()).toBe(422);
    await expect(profile.locator(".cl-formFieldErrorText__slug")).toHaveText("That slug is taken. Please try another.");
    await expect(slug).toHaveValue("analytical-engines");
    await expect(page).toHaveURL(new RegExp(`/orgs/${org.slug}/settings`));

    expect((await saveInClerkForm(page, org.id, slug, `moved-${id}`)).status()).toBe(200);
    await expect(page).toHaveURL(new RegExp(`/orgs/moved-${id}/settings$`));
    await expect(page.getByTestId("org-name")).toHaveText(org.name);
    await expect(profileOf(page).getByRole("button", { name: "Update profile" })).toBeVisible();

    const moved = await page.goto(`/orgs/moved-${id}/members`);
    expect(moved?.status()).toBe(200);
    const old = await page.goto(`/orgs/${org.slug}`);
    expect(old?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  });

  test("an admin deletes it: they land on /orgs, which no longer lists it, nor does the switcher, and its pages are 404", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const { org, admin } = await newTeamOfTwo(bapi);
    // A second organization, so /orgs and the switcher have something left to list.
    const other = await bapi("POST", "/v1/organizations", { name: `Other ${unique()}`, created_by: admin.id });
    await signInAs(context, baseURL!, admin.email);
    // The lists have been read (and kept) with the organization in them.
    await page.goto("/orgs");
    await expect(page.getByTestId("org-choice").filter({ hasText: org.name })).toBeVisible();
    const profile = await openSettings(page, org.slug);
    expect(await switcherNames(page)).toContain(org.name);

    await profile.getByRole("button", { name: "General" }).click();
    await profile.getByRole("button", { name: "Delete organization" }).click();
    const deleted = await confirmInClerkForm(page, {
      field: profile.getByLabel(`Type "${org.name}" below to continue.`),
      text: org.name,
      submit: profile.locator(".cl-formButtonPrimary").filter({ hasText: "Delete organization" }),
      isRequest: (r) => new URL(r.url()).pathname.endsWith(`/v1/organizations/${org.id}`) && r.method() !== "GET",
    });
    expect(deleted.status()).toBe(200);

    await expect(page).toHaveURL(/\/orgs(\?|$)/);
    await expect(page.getByRole("heading", { name: "Your organizations" })).toBeVisible();
    await expect(page.getByTestId("org-choice").filter({ hasText: other.body.name })).toBeVisible();
    await expect(page.getByTestId("org-choice").filter({ hasText: org.name })).toHaveCount(0);
    const listed = await switcherNames(page);
    expect(listed).toContain(other.body.name);
    expect(listed).not.toContain(org.name);
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).status).toBe(404);
    expect((await page.goto(`/orgs/${org.slug}`))?.status()).toBe(404);
    expect((await page.goto(`/orgs/${org.slug}/settings`))?.status()).toBe(404);
  });

  test("a member cannot delete it, and can leave it, landing on /orgs without it", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const { org, member } = await newTeamOfTwo(bapi);
    await signInAs(context, baseURL!, member.email);
    const profile = await openSettings(page, org.slug);
    await expect(profile.getByRole("button", { name: "Leave organization" })).toBeVisible();
    await expect(profile.getByRole("button", { name: "Delete organization" })).toHaveCount(0);
    await expect(profile.getByRole("button", { name: "Update profile" })).toHaveCount(0);

    await profile.getByRole("button", { name: "Leave organization" }).click();
    const left = await confirmInClerkForm(page, {
      field: profile.getByLabel(`Type "${org.name}" below to continue.`),
      text: org.name,
      submit: profile.locator(".cl-formButtonPrimary").filter({ hasText: "Leave organization" }),
      isRequest: (r) =>
        new URL(r.url()).pathname.endsWith(`/v1/me/organization_memberships/${org.id}`) && r.method() !== "GET",
    });
    expect(left.status()).toBe(200);

    await expect(page).toHaveURL(/\/orgs(\?|$)/);
    await expect(page.getByText("You don't belong to an organization yet.")).toBeVisible();
    expect((await page.goto(`/orgs/${org.slug}`))?.status()).toBe(404);
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).body.members_count).toBe(1);
  });
});
