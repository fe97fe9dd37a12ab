import { backendApi, newTeam } from "../support/emulator-api";
import { expect, signInAs, test } from "./fixtures";
import { openSettings } from "./organization-profile";

// Issue 49: the instance's custom roles reach Clerk's <OrganizationProfile/>:
// its members page offers them (clerk-js reads the Frontend API's
// `/v1/organizations/:id/roles`), and choosing one gives it to the member.
test.describe("custom organization roles @js", () => {
  test("OrganizationProfile offers a custom role, and giving it changes the membership", async ({
    page,
    context,
    baseURL,
  }) => {
    const bapi = backendApi(baseURL!, process.env.E2E_DATA_DIR!);
    // A role of its own for this test: the e2e run shares one instance.
    const suffix = `${Date.now().toString(36)}${test.info().parallelIndex}`;
    const name = `Auditor ${suffix}`;
    const read = await bapi("GET", "/v1/organization_permissions?query=org:sys_memberships:read");
    const role = await bapi("POST", "/v1/organization_roles", {
      name,
      key: `org:auditor_${suffix}`,
      permissions: [read.body.data[0].id],
    });
    expect(role.status).toBe(200);
    const { org, admin, members } = await newTeam(bapi, { members: 1 });
    const member = members[0]!;
    await signInAs(context, baseURL!, admin.email, org.id);
    const profile = await openSettings(page, org.slug);
    await profile.getByRole("button", { name: "Members" }).click();

    const row = profile.getByRole("row").filter({ hasText: member.email });
    await row.getByRole("button", { name: "Member" }).click();
    await profile.getByText(name, { exact: true }).click();
    await expect(row.getByRole("button", { name })).toBeVisible();
    await expect
      .poll(async () => {
        const listed = await bapi("GET", `/v1/organizations/${org.id}/memberships?user_id=${member.id}`);
        return listed.body.data[0]?.role;
      })
      .toBe(`org:auditor_${suffix}`);
  });
});
