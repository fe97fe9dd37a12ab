import type { TestInfo } from "@playwright/test";
import { armFault } from "../support/emulator-api";
import { expect, signInAs, test } from "./fixtures";

// Untagged: each test runs with JavaScript on and off. Faults are scoped to
// one person per project (by user id in the path), so runs side by side stay apart.
const MY_MEMBERSHIPS = "bapi GET /v1/users/:id/organization_memberships";
const personFor = (info: TestInfo, people: [string, string]) =>
  info.project.name === "javascript-on" ? people[0] : people[1];

test.beforeEach(async ({ context, page }) => {
  await context.request.post("/resources/theme", { form: { theme: "dark" }, maxRedirects: 0 });
  // A first visit, so Chromium already sends the colour-scheme hint: otherwise
  // Critical-CH makes it request the erroring page twice.
  await page.goto("/sign-in");
});

test("the 503 page's Try again works once the upstream recovers", async ({ page, context, baseURL }, info) => {
  const person = personFor(info, ["hedy", "tim"]);
  await signInAs(context, baseURL!, `${person}@example.com`);
  await armFault(baseURL!, {
    endpoint: MY_MEMBERSHIPS,
    mode: "error",
    status: 503,
    times: 4,
    pathIncludes: `user_seed_${person}`,
  });

  const response = await page.goto("/orgs/analytical-engines");
  expect(response?.status()).toBe(503);
  expect(response?.headers()["retry-after"]).toBeTruthy();
  await expect(page.getByRole("heading", { name: "Temporarily unavailable" })).toBeVisible();
  await expect(page.locator("html")).toHaveClass("dark");
  await expect(page.locator(".nav-bar")).toBeVisible();

  await page.getByTestId("retry").click();
  await expect(page.getByTestId("org-name")).toHaveText("Analytical Engines");
  await expect(page.getByTestId("member-count")).toHaveText("24");
});

test("the 404 page keeps the navigation bar and the theme", async ({ page, context, baseURL }, info) => {
  await signInAs(context, baseURL!, `${personFor(info, ["sophie", "guido"])}@example.com`);
  const response = await page.goto("/orgs/difference-co");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.locator("html")).toHaveClass("dark");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByText("Difference & Co")).toHaveCount(0);
});

test("the 500 page apologises with a reference, and keeps the navigation bar and the theme", async ({
  page,
  context,
  baseURL,
}, info) => {
  const person = personFor(info, ["shafi", "leslie"]);
  await signInAs(context, baseURL!, `${person}@example.com`);
  await armFault(baseURL!, {
    endpoint: MY_MEMBERSHIPS,
    mode: "error",
    status: 400,
    times: 1,
    pathIncludes: `user_seed_${person}`,
  });
  const response = await page.goto("/orgs/analytical-engines/members");
  expect(response?.status()).toBe(500);
  await expect(page.getByRole("heading", { name: "Something went wrong on our side" })).toBeVisible();
  await expect(page.getByTestId("error-reference")).toHaveText(response!.headers()["x-request-id"]!);
  await expect(page.locator("html")).toHaveClass("dark");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
});

test("a form too large to accept shows the 413 page, not a reset connection, however large", async ({ page }) => {
  // The server answers without reading the body and closes, which resets a connection still
  // sending; Chromium reads the answer that came first. (A route's limit, then the site's.)
  for (const [size, message] of [
    [900_000, "larger than this address accepts (16 KB)"],
    [2_000_000, "larger than this site accepts"],
  ] as const) {
    // A page of the site with no scripts: on the home page the app's scripts, still starting, could
    // render the home page over the form (once under CI's load; 1 in 5 with the CPU slowed 10×).
    await page.goto("/healthz");
    await page.setContent(
      `<form method="post" action="/resources/analytics"><textarea name="note"></textarea><button>Send</button></form>`,
    );
    await page.locator("textarea").evaluate((area: HTMLTextAreaElement, n) => (area.value = "a".repeat(n)), size);
    const [response] = await Promise.all([
      page.waitForResponse("**/resources/analytics"),
      page.getByRole("button", { name: "Send" }).click(),
    ]);
    expect(response.status()).toBe(413);
    await expect(page.getByRole("heading", { name: "Too large" })).toBeVisible();
    await expect(page.getByText(message)).toBeVisible();
  }
});
