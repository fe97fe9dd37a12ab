import type { Page } from "@playwright/test";
import { sinkEvents, type CapturedEvent } from "../support/capture-sink";
import {
  ANALYTICS,
  DESKTOP_CHROME,
  eventsAtSink,
  outlastPostHogBatch,
  pastAnalyticsLoad,
  playAPerson,
  recordIngest,
  SINK,
} from "./analytics-helpers";
import { expect, signInAs, test } from "./fixtures";

// Browser errors reach PostHog's error tracking through /ingest (the analytics
// server of the run, PostHog played by a capture sink), scrubbed as page views are.
test.describe("browser error reports @js", () => {
  test.use({ baseURL: ANALYTICS, userAgent: DESKTOP_CHROME });

  test.beforeEach(async ({ context }) => {
    await playAPerson(context);
  });

  /** The `$exception` events whose message contains `marker`. */
  const exceptionsWith = (marker: string) => (e: CapturedEvent) =>
    e.event === "$exception" && JSON.stringify(e.properties.$exception_list ?? "").includes(marker);

  const messageOf = (e: CapturedEvent) => (e.properties.$exception_list as { value: string }[])[0]!.value;

  /** Signed in and on /orgs?q=…, with posthog-js loaded. */
  async function signedInOnOrgs(page: Page, email: string) {
    await signInAs(page.context(), ANALYTICS, email);
    await page.goto("/orgs?q=private-search");
    await pastAnalyticsLoad(page);
  }

  test("a component that throws: the error page shows a reference, and one $exception with it arrives, scrubbed", async ({
    page,
  }) => {
    const marker = `render-failure-${Date.now()}`;
    await signedInOnOrgs(page, "ada@example.com");
    // The organization home's code, as a deploy might break it: its component throws while rendering.
    await page.route(
      (url) => /\/build\/routes\/orgs\.(\$|%24)slug\._index-[\w-]+\.js$/.test(url.pathname),
      (route) =>
        route.fulfill({
          contentType: "text/javascript",
          body: `export default function Broken() { throw new Error("${marker} for ada@example.com"); }`,
        }),
    );
    await page.getByTestId("org-choice").filter({ hasText: "Analytical Engines" }).click();
    await expect(page.getByTestId("error-page")).toBeVisible();
    await expect(page.getByTestId("error-reference")).toHaveText(/^[\w-]{12,}$/);
    const reference = await page.getByTestId("error-reference").innerText();

    const [report, ...more] = await eventsAtSink(exceptionsWith(marker), 1);
    expect(more).toEqual([]);
    expect(report!.properties).toMatchObject({ source: "error boundary", reference });
    expect(messageOf(report!)).toBe(`${marker} for [email]`);
    expect(report!.distinctId).toBe("user_seed_ada");
    expect(JSON.stringify(report)).not.toContain("ada@example.com");
    expect(JSON.stringify(report)).not.toContain("private-search");
  });

  test("an unhandled promise rejection arrives as one $exception", async ({ page }) => {
    const marker = `rejection-${Date.now()}`;
    await signedInOnOrgs(page, "grace@example.com");
    await page.evaluate((text) => {
      setTimeout(() => void Promise.reject(new Error(`${text} for grace@example.com at /orgs?q=x`)));
    }, marker);
    const [report] = await eventsAtSink(exceptionsWith(marker), 1);
    expect(report!.properties).toMatchObject({ source: "unhandled rejection" });
    expect(messageOf(report!)).toBe(`${marker} for [email] at /orgs`);
    expect(report!.url).not.toContain("?");
  });

  test("a part of the page whose code fails to load arrives as one $exception", async ({ page }) => {
    // The organization switcher's popover is fetched after the page; without it, its stand-in (a link) works.
    await page.route(
      (url) => /\/org-switcher\.radix-[\w-]+\.js$/.test(url.pathname),
      (route) => route.abort("connectionfailed"),
    );
    await signedInOnOrgs(page, "katherine@example.com");
    const [report] = await eventsAtSink(
      (e) =>
        e.event === "$exception" && e.properties.source === "module load" && e.distinctId === "user_seed_katherine",
      1,
    );
    expect(messageOf(report!)).toMatch(/org-switcher\.radix-[\w-]+\.js/);
  });

  test("an opted-out browser sends nothing", async ({ page, context }) => {
    const marker = `opted-out-${Date.now()}`;
    await context.addCookies([{ name: "analytics_opt_out", value: "1", url: ANALYTICS }]);
    const ingest = recordIngest(page);
    await signInAs(context, ANALYTICS, "alan@example.com");
    await page.goto("/orgs");
    await pastAnalyticsLoad(page);
    await page.evaluate((text) => {
      setTimeout(() => void Promise.reject(new Error(text)));
      setTimeout(() => {
        throw new Error(text);
      });
    }, marker);
    await outlastPostHogBatch(page);
    expect(ingest).toEqual([]);
    expect((await sinkEvents(SINK)).filter(exceptionsWith(marker))).toEqual([]);
  });
});
