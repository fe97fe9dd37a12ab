import { backendApi } from "../support/emulator-api";
import { expect, signInAs, test } from "./fixtures";

// An 8×8 blue PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGOwS76LFTEMLQkAKTNfgXzZBs8AAAAASUVORK5CYII=",
  "base64",
);

test.describe("an organization's logo in Clerk's OrganizationProfile @js", () => {
  test("an admin uploads a logo, the emulator serves it, and removes it", async ({ page, context, baseURL }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    const name = `Logo Team ${Date.now().toString(36)}`;
    const org = (await bapi("POST", "/v1/organizations", { name, created_by: "user_seed_ada" })).body as {
      id: string;
      slug: string;
    };
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto(`/orgs/${org.slug}/settings`);
    const profile = page.locator(".cl-organizationProfile-root");
    await profile.getByRole("button", { name: "Update profile" }).click();

    await profile.locator('input[type="file"]').setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG });
    // An uploaded image, not the default avatar an organization without one shows (as Clerk's, drawn by the emulator).
    const uploaded = `img[src*="/__clerk/images/"]:not([src*="/avatar_placeholder/"])`;
    const logo = profile.locator(uploaded).first();
    await expect(logo).toBeVisible();
    const src = await logo.getAttribute("src");
    const served = await page.request.get(src!);
    expect([served.status(), served.headers()["content-type"]]).toEqual([200, "image/png"]);
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).body.has_image).toBe(true);

    // Clerk applies the upload at once and closes the form; removing is the same form's other action.
    await profile.getByRole("button", { name: "Update profile" }).click();
    await profile.getByRole("button", { name: "Remove", disabled: false }).click();
    await expect(profile.locator(uploaded)).toHaveCount(0);
    await expect(profile.locator(`img[src*="/avatar_placeholder/"]`).first()).toBeVisible();
    await expect.poll(async () => (await bapi("GET", `/v1/organizations/${org.id}`)).body.has_image).toBe(false);
  });
});
