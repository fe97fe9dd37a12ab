import { readFileSync } from "node:fs";
import {
  test as base,
  expect,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from "@playwright/test";
import { isLoopbackUrl } from "../support/guard";
import { emulatorSession } from "../support/session";

/**
 * Every test gets a network guard: the browser may only reach loopback, and
 * the server (preloaded with the Node guard) must not have tried otherwise.
 */
export const test = base.extend<{ guard: void; offLoopback: string[] }>({
  offLoopback: async ({}, use) => {
    await use([]);
  },
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

/** Resolves after the current page has been replaced by a full document load. */
export async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  return () => page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument !== true);
}

export { expect };

/** Puts a seeded user's signed-in cookies (as a real sign-in leaves them) into the browser. */
export async function signInAs(context: BrowserContext, baseURL: string, email: string) {
  const s = await emulatorSession(baseURL, email);
  await context.addCookies([
    { name: "__client", value: s.clientId, url: `${baseURL}/__clerk` },
    { name: "__client_uat", value: String(s.clientUat), url: baseURL },
    { name: "__session", value: s.sessionToken, url: baseURL },
  ]);
  return s;
}
