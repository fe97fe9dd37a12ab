import { expect, markDocument, signInAs, test } from "./fixtures";

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

test.describe("switching organizations with JavaScript @js", () => {
  test("from the popover: page, popover and Clerk all follow, without a full reload", async ({
    page,
    context,
    baseURL,
  }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto("/orgs/analytical-engines");
    await expect(page.getByTestId("org-name")).toHaveText("Analytical Engines");
    // The page made the URL's organization active in Clerk.
    await page.waitForFunction(
      () =>
        (window as unknown as { Clerk?: { organization?: { id: string } } }).Clerk?.organization?.id ===
        "org_seed_engines",
    );
    const reloaded = await markDocument(page);

    // Slow the next page's data a little, so the progress bar has time to show.
    await page.route("**/orgs/difference-co.data*", async (route) => {
      await new Promise((r) => setTimeout(r, 600));
      await route.continue();
    });
    await page.getByTestId("org-switcher-trigger").click();
    const panel = page.getByTestId("org-switcher-panel");
    await expect(panel.locator('[aria-current="true"]')).toContainText("Analytical Engines");
    await panel.getByRole("link", { name: /Difference & Co/ }).click();
    await expect(page.locator("#nprogress")).toBeAttached();

    await expect(page).toHaveURL(/\/orgs\/difference-co$/);
    await expect(page.getByTestId("org-name")).toHaveText("Difference & Co");
    await expect(panel).toBeHidden();
    await expect(page.getByTestId("org-switcher-trigger")).toHaveAccessibleName("Difference & Co, switch organization");
    await page.waitForFunction(
      () =>
        (window as unknown as { Clerk?: { organization?: { id: string } } }).Clerk?.organization?.id ===
        "org_seed_difference",
    );
    expect(await reloaded()).toBe(false);

    // Clerk's own component shows the new organization too.
    await page.getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/orgs\/difference-co\/settings/);
    await expect(page.locator(".cl-organizationProfile-root").getByText("Difference & Co").first()).toBeVisible({
      timeout: 15_000,
    });
    expect(await reloaded()).toBe(false);
  });

  test("with the keyboard: open, move, choose, and close", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "grace@example.com");
    await page.goto("/orgs/difference-co");
    const trigger = page.getByTestId("org-switcher-trigger");
    await expect(trigger).toHaveAccessibleName("Difference & Co, switch organization");

    // Open with Enter, close with Escape: focus returns to the trigger.
    await trigger.focus();
    await page.keyboard.press("Enter");
    const panel = page.getByTestId("org-switcher-panel");
    await expect(panel).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    await expect(trigger).toBeFocused();

    // Open with Space, move with the arrows, choose with Enter.
    await page.keyboard.press("Space");
    await expect(panel).toBeVisible();
    await page.keyboard.press("Home");
    await expect(panel.getByRole("link", { name: /Difference & Co/ })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(panel.getByRole("link", { name: /Analytical Engines/ })).toBeFocused();
    await page.keyboard.press("End");
    await expect(panel.getByRole("link", { name: "All organizations" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(panel.getByRole("link", { name: /Difference & Co/ })).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect(panel.getByRole("link", { name: /Analytical Engines/ })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/orgs\/analytical-engines$/);
    await expect(page.getByTestId("org-name")).toHaveText("Analytical Engines");
    await expect(panel).toBeHidden();
  });

  test("the list loads off the page's path; a dropped connection is said in the panel, and the next opening retries", async ({
    page,
    context,
    baseURL,
  }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    // The document itself carries only the organization it is about.
    const html = await (await context.request.get("/orgs/analytical-engines")).text();
    expect(html).toContain("Analytical Engines");
    expect(html).not.toContain("Difference &amp; Co");

    let drop = true;
    await page.route("**/resources/organizations", (route) =>
      drop ? route.abort("connectionreset") : route.continue(),
    );
    await page.goto("/orgs/analytical-engines");
    const trigger = page.getByTestId("org-switcher-trigger");
    await expect(trigger).toHaveAccessibleName("Analytical Engines, switch organization");
    await trigger.click();
    const panel = page.getByTestId("org-switcher-panel");
    await expect(panel.getByRole("status")).toHaveText(/could not be loaded/);
    // The page and the panel's own links are untouched.
    await expect(page.getByTestId("org-name")).toHaveText("Analytical Engines");
    await expect(panel.getByRole("link", { name: "All organizations" })).toBeVisible();

    drop = false;
    await page.keyboard.press("Escape");
    await trigger.click();
    await expect(panel.locator('[aria-current="true"]')).toContainText("Analytical Engines");
    await expect(panel.getByRole("link", { name: /Difference & Co/ })).toBeVisible();
    await expect(panel.getByRole("status")).toHaveText("");
  });

  test("the members directory searches and pages without reloading", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "frances@example.com");
    await page.goto("/orgs/analytical-engines/members");
    const reloaded = await markDocument(page);
    await expect(page.getByTestId("member-row")).toHaveCount(10);
    await page.getByRole("link", { name: "Next →" }).click();
    await expect(page).toHaveURL(/page=2/);
    await page.getByLabel("Search members by name or email").fill("lovelace");
    await page.getByLabel("Search members by name or email").press("Enter");
    await expect(page).toHaveURL(/\?q=lovelace$/);
    await expect(page.getByTestId("member-row")).toHaveCount(1);
    await expect(page.getByTestId("member-row")).toContainText("ada@example.com");
    expect(await reloaded()).toBe(false);
  });
});

test.describe("organizations without JavaScript @nojs", () => {
  test("switch through /orgs, the switcher's link fallback", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto("/orgs/analytical-engines");
    await page.getByTestId("org-switcher-link").click();
    await expect(page).toHaveURL(/\/orgs$/);
    await page.getByRole("link", { name: /Difference & Co/ }).click();
    await expect(page).toHaveURL(/\/orgs\/difference-co$/);
    await expect(page.getByTestId("org-name")).toHaveText("Difference & Co");
    await expect(page.getByTestId("org-switcher-link")).toHaveAccessibleName("Difference & Co, switch organization");
  });

  test("search members with the GET form", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto("/orgs/analytical-engines/members");
    await page.getByLabel("Search members by name or email").fill("hopper");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/\/members\?q=hopper$/);
    await expect(page.getByTestId("member-row")).toHaveCount(1);
    await expect(page.getByTestId("member-row")).toContainText("Grace Hopper");
    await expect(page.getByLabel("Search members by name or email")).toHaveValue("hopper");
  });

  test("invite a member as an admin; a bad address keeps what was typed", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "ada@example.com");
    await page.goto("/orgs/analytical-engines/members");
    const email = page.getByLabel("Email address");

    await email.fill("not an email");
    await page.getByLabel("Role").selectOption("org:admin");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByTestId("emailAddress-error")).toHaveText(
      "Enter a valid email address, like name@example.com.",
    );
    await expect(email).toHaveValue("not an email");
    await expect(page.getByLabel("Role")).toHaveValue("org:admin");

    const address = `invitee-${unique()}@example.com`;
    await email.fill(address);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByTestId("invite-sent")).toHaveText(`Invitation made for ${address}: its link is below.`);
    await expect(page.getByTestId("pending-invitations")).toContainText(address);
  });

  test("a member sees no invite form", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "alan@example.com");
    await page.goto("/orgs/analytical-engines/members");
    await expect(page.getByTestId("member-row").first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Send invitation" })).toHaveCount(0);
  });

  test("create an organization and land in it as its admin", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "alan@example.com");
    await page.goto("/orgs");
    await page.getByRole("link", { name: "Create organization" }).click();
    await expect(page).toHaveURL(/\/orgs\/new$/);

    await page.getByLabel("Name").fill("<i>Enigma</i>");
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page.getByTestId("name-error")).toContainText("can't contain < or >");
    await expect(page.getByLabel("Name")).toHaveValue("<i>Enigma</i>");

    const name = `Hut ${unique()}`;
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${name.toLowerCase().replace(" ", "-")}$`));
    await expect(page.getByTestId("org-name")).toHaveText(name);
    await expect(page.getByTestId("org-role")).toHaveText("Admin");
    await expect(page.getByTestId("member-count")).toHaveText("1");
  });
});
