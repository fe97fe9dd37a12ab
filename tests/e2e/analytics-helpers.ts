import type { BrowserContext, Page } from "@playwright/test";
import { sinkEvents, type CapturedEvent } from "../support/capture-sink";
import { expect } from "./fixtures";

// The analytics server of the e2e run (POSTHOG_KEY set, PostHog played by a
// capture sink on loopback) and what its tests share.
export const SINK = process.env.E2E_SINK_ORIGIN!;
export const ANALYTICS = process.env.E2E_ANALYTICS_ORIGIN!;
export const PH_COOKIE = "ph_phc_e2e_posthog";

// posthog-js drops events from automated browsers (a headless user agent,
// navigator.webdriver); these tests play a person's Chrome.
export const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export async function playAPerson(context: BrowserContext) {
  await context.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, "webdriver", { get: () => false });
    Object.defineProperty(Navigator.prototype, "userAgentData", { get: () => undefined });
  });
}

export async function anonymousId(context: BrowserContext): Promise<string> {
  await expect.poll(async () => (await context.cookies()).some((c) => c.name === PH_COOKIE)).toBe(true);
  const cookie = (await context.cookies()).find((c) => c.name === PH_COOKIE)!;
  return (JSON.parse(decodeURIComponent(cookie.value)) as { distinct_id: string }).distinct_id;
}

/** Waits until the sink holds `count` events matching `match` (posthog-js sends in batches). */
export async function eventsAtSink(match: (e: CapturedEvent) => boolean, count: number): Promise<CapturedEvent[]> {
  await expect
    .poll(async () => (await sinkEvents(SINK)).filter(match).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  return (await sinkEvents(SINK)).filter(match);
}

/**
 * Proves an absence: posthog-js holds events and sends them in batches every
 * 3 s, so "nothing more was sent" can only be known once a batch window has
 * passed with the page open. Used only where a test asserts that nothing (or
 * nothing more) arrives; everything that does arrive is awaited by condition.
 */
export async function outlastPostHogBatch(page: Page) {
  // eslint-disable-next-line playwright/no-wait-for-timeout -- an absence has no event to wait for (see above)
  await page.waitForTimeout(3_500);
}

/**
 * Past the point where the app would have started loading posthog-js: it
 * does so in the first idle callback after hydration, and idle callbacks run
 * in order, so two more idle periods are enough.
 */
export async function pastAnalyticsLoad(page: Page) {
  // The theme menu's Radix trigger replaces its no-JavaScript fallback once the page has hydrated.
  await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 5_000 })));
  }
}

export function recordIngest(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname.startsWith("/ingest")) seen.push(r.url());
  });
  return seen;
}
