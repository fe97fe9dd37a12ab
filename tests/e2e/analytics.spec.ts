import { sinkEvents, type CapturedEvent } from "../support/capture-sink";
import {
  ANALYTICS,
  anonymousId,
  DESKTOP_CHROME,
  eventsAtSink,
  outlastPostHogBatch,
  pastAnalyticsLoad,
  playAPerson,
  recordIngest,
  SINK,
} from "./analytics-helpers";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";

test.beforeEach(async ({ context }) => {
  await playAPerson(context);
});

test.describe("analytics with JavaScript @js", () => {
  test.use({ baseURL: ANALYTICS, userAgent: DESKTOP_CHROME });

  test("the first page and two client-side page changes are exactly three page views", async ({ page, context }) => {
    await page.goto("/");
    const id = await anonymousId(context);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign up" }).click();
    await expect(page).toHaveURL(/\/sign-up$/);

    const mine = (e: CapturedEvent) => e.event === "$pageview" && e.distinctId === id;
    await eventsAtSink(mine, 3);
    await outlastPostHogBatch(page);
    const views = (await sinkEvents(SINK)).filter(mine);
    expect(views.map((e) => new URL(e.url!).pathname)).toEqual(["/", "/sign-in", "/sign-up"]);
  });

  test("signed in, events carry the Clerk user id and the URL's organization", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "margaret@example.com");
    await page.goto("/orgs/analytical-engines/members");
    const [view] = await eventsAtSink((e) => e.event === "$pageview" && e.distinctId === "user_seed_margaret", 1);
    expect(view!.groups).toEqual({ organization: "org_seed_engines" });
    expect(new URL(view!.url!).pathname).toBe("/orgs/analytical-engines/members");
    // Nothing about the person but their id.
    expect(JSON.stringify(view)).not.toMatch(/margaret@example\.com|Hamilton/);

    // Leaving the organization's pages leaves its group too.
    await page.getByRole("link", { name: "Profile" }).click();
    await expect(page).toHaveURL(/\/user$/);
    const [profile] = await eventsAtSink(
      (e) => e.event === "$pageview" && e.distinctId === "user_seed_margaret" && (e.url ?? "").endsWith("/user"),
      1,
    );
    expect(profile!.groups).toEqual({});
  });

  test("after signing out, page views come from a new anonymous id", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "john@example.com");
    await page.goto("/orgs");
    const [identify] = await eventsAtSink((e) => e.event === "$identify" && e.distinctId === "user_seed_john", 1);
    const before = identify!.properties.$anon_distinct_id as string;

    await page.getByTestId("user-menu-trigger").click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();

    // The signed-out page shows before its scripts run; PostHog's reset (a new anonymous id) comes with them.
    await expect.poll(() => anonymousId(context)).not.toBe("user_seed_john");
    const after = await anonymousId(context);
    expect(after).not.toBe(before);
    const [view] = await eventsAtSink((e) => e.event === "$pageview" && e.distinctId === after, 1);
    expect(new URL(view!.url!).pathname).toBe("/");
  });

  test("Do Not Track: nothing is loaded and nothing is sent", async ({ browser, baseURL }) => {
    const guarded = await openGuardedContext(browser, {
      baseURL,
      userAgent: DESKTOP_CHROME,
      extraHTTPHeaders: { DNT: "1" },
    });
    const { context } = guarded;
    await playAPerson(context);
    const page = await context.newPage();
    const ingest = recordIngest(page);
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await pastAnalyticsLoad(page);
    expect(ingest).toEqual([]);
    expect((await context.cookies()).filter((c) => c.name.startsWith("ph_"))).toEqual([]);
    await guarded.close();
  });

  test("turning analytics off in the user menu stops all events", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "dennis@example.com");
    await page.goto("/orgs");
    await eventsAtSink((e) => e.event === "$pageview" && e.distinctId === "user_seed_dennis", 1);
    await outlastPostHogBatch(page);
    const sentBefore = (await sinkEvents(SINK)).filter((e) => e.distinctId === "user_seed_dennis").length;

    await page.getByTestId("user-menu-trigger").click();
    await page.getByRole("menuitem", { name: "Turn usage analytics off" }).click();
    await expect
      .poll(async () => (await context.cookies()).find((c) => c.name === "analytics_opt_out")?.value)
      .toBe("1");
    const ingest = recordIngest(page);
    await page
      .getByRole("link", { name: /Analytical Engines/ })
      .first()
      .click();
    await expect(page).toHaveURL(/\/orgs\/analytical-engines$/);
    await page.reload();
    await page.getByRole("link", { name: "Members", exact: true }).click();
    await expect(page).toHaveURL(/\/members$/);
    await outlastPostHogBatch(page);

    expect(ingest).toEqual([]);
    expect((await sinkEvents(SINK)).filter((e) => e.distinctId === "user_seed_dennis")).toHaveLength(sentBefore);
    await page.getByTestId("user-menu-trigger").click();
    await expect(page.getByRole("menuitem", { name: "Turn usage analytics on" })).toBeVisible();
  });
});

test("without POSTHOG_KEY no PostHog code is requested at all @js", async ({ browser, page }) => {
  // Find the PostHog chunk on the server that has a key…
  const guarded = await openGuardedContext(browser, { baseURL: ANALYTICS, userAgent: DESKTOP_CHROME });
  const keyed = guarded.context;
  await playAPerson(keyed);
  const keyedPage = await keyed.newPage();
  const scripts: Promise<[string, string]>[] = [];
  keyedPage.on("response", (r) => {
    if (r.request().resourceType() === "script") {
      scripts.push(
        r.text().then(
          (body) => [new URL(r.url()).pathname, body] as [string, string],
          () => ["", ""],
        ),
      );
    }
  });
  await keyedPage.goto("/");
  await anonymousId(keyed);
  const posthogChunks = (await Promise.all(scripts))
    // posthog-js names itself in its code; the root chunk only names the lazy chunk's file.
    .filter(([, body]) => body.includes('"posthog-js"'))
    .map(([path]) => path);
  expect(posthogChunks.length).toBeGreaterThan(0);
  // PostHog's lazily loaded code runs under the CSP too (close() checks).
  await guarded.close();

  // …and check the same build, without a key, never asks for it (or for /ingest).
  const requested: string[] = [];
  page.on("request", (r) => requested.push(new URL(r.url()).pathname));
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await pastAnalyticsLoad(page);
  expect(requested.filter((p) => posthogChunks.includes(p) || p.startsWith("/ingest"))).toEqual([]);
  expect(requested.some((p) => p.startsWith("/build/"))).toBe(true);
});

test.describe("analytics without JavaScript @nojs", () => {
  test.use({ baseURL: ANALYTICS, userAgent: DESKTOP_CHROME });

  test("the user menu's opt-out is a real form", async ({ page, context, baseURL }) => {
    await signInAs(context, baseURL!, "radia@example.com");
    await page.goto("/orgs");
    await page.locator('[data-testid="user-menu-fallback"] summary').click();
    await page.getByRole("button", { name: "Turn usage analytics off" }).click();
    await expect(page).toHaveURL(/\/orgs$/);
    expect((await context.cookies()).find((c) => c.name === "analytics_opt_out")?.value).toBe("1");
    await page.locator('[data-testid="user-menu-fallback"] summary').click();
    await page.getByRole("button", { name: "Turn usage analytics on" }).click();
    expect((await context.cookies()).find((c) => c.name === "analytics_opt_out")).toBeUndefined();
  });
});
