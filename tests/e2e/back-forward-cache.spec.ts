import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { expect, openGuardedContext, signInAs, test } from "./fixtures";

// The back/forward cache (docs/performance.md, issue 70): HTML pages answer
// `private, no-cache`, not `no-store`, so Chromium may keep a page to restore on
// Back; app/lib/restored-page.ts loads one afresh if the browser's sign-in
// changed while it was away. Playwright turns Chromium's back/forward cache
// off by default (--disable-back-forward-cache): these tests launch a
// Chromium of their own with it on.
let browser: Browser;

test.beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    ignoreDefaultArgs: ["--disable-back-forward-cache"],
  });
});

test.afterAll(async () => {
  await browser?.close();
});

type Marked = { __kept?: boolean; __restored?: boolean };
/** Marks the document, so that a restore (the same document, `pageshow` persisted) tells from a fresh load. */
const mark = (page: Page) =>
  page.evaluate(() => {
    const marked = window as unknown as Marked;
    marked.__kept = true;
    window.addEventListener("pageshow", (event) => (marked.__restored = event.persisted));
  });
const restored = (page: Page) =>
  page.evaluate(() => {
    const marked = window as unknown as Marked;
    return marked.__kept === true && marked.__restored === true;
  });

/**
 * A page of a context of the cache-on Chromium (JavaScript on or off), signed in as `email` if given,
 * at `path` once it shows `ready`; the context is closed (and checked) after `use`.
 */
async function onPage(
  baseURL: string,
  {
    javaScript,
    email,
    path,
    ready,
  }: { javaScript: boolean; email?: string; path: string; ready: (page: Page) => Promise<void> },
  use: (page: Page, context: BrowserContext) => Promise<void>,
) {
  const guarded = await openGuardedContext(browser, { baseURL, javaScriptEnabled: javaScript });
  try {
    if (email) await signInAs(guarded.context, baseURL, email);
    const page = await guarded.context.newPage();
    await page.goto(path);
    await ready(page);
    await use(page, guarded.context);
  } finally {
    await guarded.close();
  }
}

const signInShown = (page: Page) => expect(page.locator(".cl-signIn-root")).toBeVisible();
const hydrated = (page: Page) => expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
const on = { javaScript: true, path: "/sign-in", ready: signInShown };

test("Back to sign-in restores the page from the back/forward cache @js", async ({ baseURL }) => {
  await onPage(baseURL!, on, async (page) => {
    await mark(page);
    await page.goto("/sign-up");
    await page.goBack({ waitUntil: "commit" });
    await expect(page).toHaveURL(/\/sign-in$/);
    expect(await restored(page)).toBe(true);
  });
});

test("Back to sign-in after signing in meanwhile loads it afresh, signed in @js", async ({ baseURL }) => {
  await onPage(baseURL!, on, async (page, context) => {
    await mark(page);
    await page.goto("/sign-up");
    // Signed in meanwhile (another tab, say): the browser's `__client_uat` changed, so the restored
    // sign-in page reloads (app/lib/restored-page.ts) instead of offering to sign in again, and
    // Clerk's sign-in, for someone signed in, goes on to the page after it.
    await signInAs(context, baseURL!, "grace@example.com");
    await page.goBack({ waitUntil: "commit" });
    await expect(page).toHaveURL(/\/orgs$/);
    await expect(page.getByTestId("user-menu-trigger")).toBeVisible();
    expect(await restored(page)).toBe(false);
  });
});

test("Back to a signed-in page loads it afresh: signed-in pages are never kept (no-store) @js", async ({ baseURL }) => {
  await onPage(baseURL!, { ...on, email: "grace@example.com", path: "/orgs", ready: hydrated }, async (page) => {
    await mark(page);
    await page.goto("/resources/theme");
    await page.goBack({ waitUntil: "commit" });
    await expect(page).toHaveURL(/\/orgs$/);
    await hydrated(page);
    expect(await restored(page)).toBe(false);
  });
});

test("without JavaScript, Back after signing out does not show the signed-in page @nojs", async ({ baseURL }) => {
  const atProfile = (page: Page) => expect(page).toHaveURL(/\/user$/);
  await onPage(
    baseURL!,
    { javaScript: false, email: "barbara@example.com", path: "/user", ready: atProfile },
    async (page) => {
      await page.locator('[data-testid="user-menu-fallback"] summary').click();
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
      await page.goBack({ waitUntil: "commit" });
      await expect(page).toHaveURL(/\/sign-in\?redirect_url=%2Fuser/);
    },
  );
});
