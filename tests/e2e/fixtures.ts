import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  test as base,
  expect,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
  type Request,
  type Response,
} from "@playwright/test";
import { completeLength, contractBreaches, readAnswers, type Answer } from "clerk-emulator/contract";
import { isLoopbackUrl } from "../support/guard";
import { emulatorSession } from "../support/session";

/**
 * Every test gets a network guard: the browser may only reach loopback, and
 * the server (preloaded with the Node guard) must not have tried otherwise.
 */
export const test = base.extend<{ guard: void; offLoopback: string[]; contract: void }>({
  offLoopback: async ({}, use) => {
    await use([]);
  },
  // The test's browser tags its requests, so the emulator's answers to them
  // are checked against Clerk's spec and a mismatch fails this test.
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use, testInfo) => {
    await use({ ...extraHTTPHeaders, [CONTRACT_HEADER]: testInfo.testId });
  },
  contract: [
    async ({}, use, testInfo) => {
      const offsets = recordingOffsets();
      await use();
      const mine = answersSince(offsets).filter((a) => a.test === testInfo.testId || a.test === null);
      expect(contractBreaches(mine).join("\n"), "emulator answers that break Clerk's published API").toBe("");
    },
    { auto: true },
  ],
  guard: [
    async ({ context, offLoopback }, use) => {
      await guardContext(context, offLoopback);
      const violations = await recordCspViolations(context);
      const before = serverGuardLog();
      await use();
      expect(violations, "Content-Security-Policy violations").toEqual([]);
      expect(offLoopback, "browser requests beyond loopback").toEqual([]);
      expect(serverGuardLog().slice(before.length), "server connections beyond loopback").toBe("");
    },
    { auto: true },
  ],
});

const CONTRACT_HEADER = "X-Contract-Test";

/** Each recording file of the run's servers, and how far into it the complete lines go now. */
function recordingOffsets(): Map<string, number> {
  const dir = process.env.CLERK_EMULATOR_RECORD_DIR;
  const offsets = new Map<string, number>();
  if (!dir || !existsSync(dir)) return offsets;
  for (const name of readdirSync(dir)) offsets.set(join(dir, name), completeLength(join(dir, name)));
  return offsets;
}

/** The answers recorded after `offsets` was taken (in files new since then, all of them). */
function answersSince(offsets: Map<string, number>): Answer[] {
  const dir = process.env.CLERK_EMULATOR_RECORD_DIR;
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => readAnswers(join(dir, name), offsets.get(join(dir, name)) ?? 0).answers);
}

export async function guardContext(context: BrowserContext, record: string[], allowHosts: string[] = []) {
  await context.route(
    (url) => !isLoopbackUrl(url.toString()) && !allowHosts.includes(new URL(url.toString()).hostname),
    (route) => {
      record.push(route.request().url());
      return route.abort("blockedbyclient");
    },
  );
}

const CSP_MARK = "csp-violation:";

/** Every `securitypolicyviolation` on any page of the context, as "directive blocked-uri". */
export async function recordCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.addInitScript((mark) => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`${mark}${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  }, CSP_MARK);
  context.on("console", (message) => {
    if (message.text().startsWith(CSP_MARK)) violations.push(message.text().slice(CSP_MARK.length));
  });
  return violations;
}

/**
 * A context a test makes itself, under the same rules as the fixtures' own:
 * loopback only, and no CSP violation. `close()` closes it and fails the
 * test on either.
 */
export async function openGuardedContext(
  browser: Browser,
  options: BrowserContextOptions,
  /** Names the test maps to 127.0.0.1 itself (Chromium's --host-resolver-rules). */
  allowHosts: string[] = [],
) {
  const context = await browser.newContext(options);
  const offLoopback: string[] = [];
  await guardContext(context, offLoopback, allowHosts);
  const violations = await recordCspViolations(context);
  return {
    context,
    async close() {
      await context.close();
      expect(violations, "Content-Security-Policy violations").toEqual([]);
      expect(offLoopback, "browser requests beyond loopback").toEqual([]);
    },
  };
}

function serverGuardLog(): string {
  const file = process.env.NETWORK_GUARD_LOG;
  return file ? readFileSync(file, "utf8") : "";
}

/**
 * Marks the current document, once it has hydrated (a link clicked before
 * then is a plain link, and a full load is then right), and returns a check
 * that says whether it has since been replaced by a full document load.
 */
export async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  // The theme menu's Radix trigger replaces its no-JavaScript fallback once the page has hydrated.
  await expect(page.getByTestId("theme-menu-trigger")).toBeVisible();
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  return () => page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument !== true);
}

export { expect };

/**
 * Puts a user's signed-in cookies into the browser, as a real sign-in leaves
 * them (`__client` too, so clerk-js sees the session and Clerk's components
 * render), with `orgId` the session's active organization if given.
 */
export async function signInAs(context: BrowserContext, baseURL: string, email: string, orgId?: string) {
  const s = await emulatorSession(baseURL, email, orgId);
  const domain = new URL(baseURL).hostname;
  await context.addCookies(s.cookies.map((cookie) => ({ ...cookie, domain })));
  return s;
}

/**
 * Fills a field of one of Clerk's forms (the text a "type … to continue"
 * form asks for, a sign-up's password) and submits it, until clerk-js sends
 * the request it guards (`isRequest`).
 * Under load a click can land before Clerk's form has taken the typed text,
 * and the form then ignores it without a word; a person would click again.
 */
export async function confirmInClerkForm(
  page: Page,
  {
    field,
    text,
    submit,
    isRequest,
  }: { field: Locator; text: string; submit: Locator; isRequest: (r: Request) => boolean },
): Promise<Response> {
  let answer: Response | null = null;
  await expect(async () => {
    const sent = page.waitForResponse((r) => isRequest(r.request()), { timeout: 5_000 }).catch((e: Error) => e);
    await field.fill(text);
    await submit.click({ timeout: 5_000 });
    const result = await sent;
    if (result instanceof Error) throw result;
    answer = result;
  }).toPass({ timeout: 30_000 });
  return answer!;
}
