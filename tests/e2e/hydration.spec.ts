import type { Page } from "@playwright/test";
import { expect, signInAs, test } from "./fixtures";
import { CLERK_PAGES, ROUTES } from "../support/routes";

// Every page hydrates what the server sent without a mismatch. React 18 reports one (a minified
// error #418 to #425 in production) and then renders the whole document again in the browser,
// body included: everything the page set up on the server's DOM before then is lost (clerk-first's
// watch of Clerk's frame was, when a preload link was added in the middle of the head).

const MISMATCH = /Minified React error #4(18|19|20|21|22|23|25)\b|Hydration failed|did not match/i;

/** Visits `path` and waits until it has hydrated (and Clerk has drawn, on Clerk's pages); the mismatches reported. */
async function mismatchesOn(page: Page, path: string): Promise<string[]> {
  const reported: string[] = [];
  page.on("pageerror", (error) => MISMATCH.test(error.message) && reported.push(`${path}: ${error.message}`));
  page.on("console", (m) => m.type() === "error" && MISMATCH.test(m.text()) && reported.push(`${path}: ${m.text()}`));
  await page.goto(path);
  await expect(page.getByTestId("theme-menu-trigger").or(page.locator(".cl-rootBox")).first()).toBeVisible();
  if (CLERK_PAGES.test(path)) await expect(page.locator(".cl-rootBox").first()).toBeVisible();
  return reported;
}

test("signed-out pages hydrate without a mismatch @js", async ({ page }) => {
  const reported = [];
  for (const path of ROUTES.signedOut) reported.push(...(await mismatchesOn(page, path)));
  expect(reported).toEqual([]);
});

test("signed-in pages hydrate without a mismatch @js", async ({ page, context, baseURL }) => {
  await signInAs(context, baseURL!, "ada@example.com");
  const reported = [];
  for (const path of ROUTES.signedIn) reported.push(...(await mismatchesOn(page, path)));
  expect(reported).toEqual([]);
});
