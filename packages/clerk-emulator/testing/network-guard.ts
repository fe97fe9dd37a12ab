import { createRequire } from "node:module";
import type { Browser, BrowserContext } from "@playwright/test";

const require = createRequire(import.meta.url);
export const NETWORK_GUARD_PATH = require.resolve("./network-guard.cjs");
export const NETWORK_GUARD_MARK = "NETWORK GUARD: blocked connection to";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function isLoopbackUrl(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true;
    return LOOPBACK_HOSTS.has(hostname) || /^127\./.test(hostname);
  } catch {
    return false;
  }
}

/** A Playwright browser context whose requests beyond loopback are refused, each listed in `offLoopback`. */
export async function loopbackOnlyContext(browser: Browser, offLoopback: string[]): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.route(
    (url) => !isLoopbackUrl(url.href),
    (route) => {
      offLoopback.push(route.request().url());
      return route.abort();
    },
  );
  return context;
}
