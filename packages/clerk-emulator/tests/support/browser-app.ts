import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import express, { type Express } from "express";
import { afterAll, beforeAll, expect } from "vitest";
import { createClerkEmulator, type ClerkEmulator, type ClerkEmulatorOptions } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { emulatorIssuer, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { loopbackOnlyContext } from "../../testing";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";
import { CORE3_FIXTURE, REPO_ROOT } from "./paths";

/**
 * The real clerk-js in Chromium against the emulator, in this process: an express app with the
 * emulator at `/__clerk` (its control API at `/__clerk/_emulator`), Clerk's script CDN serving
 * clerk-js 5 from the repository's node_modules and 6 from the Core 3 fixture's, and a bare page
 * that loads it through the proxy path as Clerk's script tag does: `/` and `/5` with clerk-js 5,
 * `/6` with clerk-js 6. Every browser context refuses requests beyond loopback and lists them in
 * `offLoopback`.
 */
export type BrowserAppOptions = {
  /** The emulator's options beyond where it is mounted; a fresh secret key and the instance's issuer unless given. */
  emulator?: Partial<Omit<ClerkEmulatorOptions, "dataDir" | "mountPath">>;
  /** What the page's body holds (the nodes a test mounts Clerk's components in). */
  body?: string;
  /** The page's host: `localhost` where an IP address will not do (a WebAuthn RP ID). */
  hostname?: "127.0.0.1" | "localhost";
  /** Routes of the app's own, matched before the clerk-js pages. */
  routes?: (app: Express) => void;
};

export type BrowserApp = {
  origin: string;
  emulator: ClerkEmulator;
  secretKey: string;
  publishableKey: string;
  browser: Browser;
  /** Every request a page tried beyond loopback (each refused). */
  offLoopback: string[];
  /** A browser context whose requests beyond loopback are refused and listed in `offLoopback`. */
  newContext(): Promise<BrowserContext>;
  /** `fn` on a page in a browser of its own (a fresh context), closed after, even when `fn` fails. */
  inFreshBrowser<R>(fn: (page: Page, context: BrowserContext) => Promise<R>): Promise<R>;
  /** `fn` in a fresh browser on `path`, once the page's clerk-js has loaded. */
  onClerkPage<R>(path: string, fn: (page: Page) => Promise<R>): Promise<R>;
  /** `fn(args)` run in the page, in a fresh browser on `path` once the page's clerk-js has loaded. */
  inClerkJs<A, R>(path: string, fn: (args: A) => Promise<R>, args: A): Promise<R>;
  /** Stops the browser (Chromium's whole process group), the server and the emulator, each even if another fails. */
  stop(): Promise<void>;
};

/** The page's clerk-js, once its script has made `window.Clerk`, loaded (again, after a reload). */
export async function loadClerkJs(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const w = window as unknown as { Clerk?: { load(): Promise<void> } };
    while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
    await w.Clerk.load();
  });
}

/** A page with clerk-js `major` loaded from Clerk's CDN path on the proxy, configured as Clerk's script tag configures it. */
export function clerkJsPage({
  major,
  publishableKey,
  proxyUrl,
  body = "",
}: {
  major: "5" | "6";
  publishableKey: string;
  proxyUrl: string;
  body?: string;
}): string {
  return `<!doctype html><html><head><script
      data-clerk-publishable-key="${publishableKey}"
      data-clerk-proxy-url="${proxyUrl}"
      src="/__clerk/npm/@clerk/clerk-js@${major}/dist/clerk.browser.js"></script></head><body>${body}</body></html>`;
}

export async function startBrowserApp(options: BrowserAppOptions = {}): Promise<BrowserApp> {
  const development = options.emulator?.development ?? false;
  const secretKey =
    options.emulator?.secretKey ?? `sk_${development ? "test" : "live"}_emulator_${randomBytes(12).toString("hex")}`;
  const publishableKey = emulatorPublishableKey(development);
  const emulator = createClerkEmulator({
    issuer: emulatorIssuer(development),
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
    ...options.emulator,
    dataDir: null,
    mountPath: "/__clerk",
    secretKey,
  });
  let origin = "";
  const app = express();
  app.use(
    "/__clerk",
    createScriptCdn({ dirs: [join(REPO_ROOT, "node_modules"), join(CORE3_FIXTURE, "node_modules")] }),
  );
  app.use("/__clerk/_emulator", emulator.control);
  app.use("/__clerk", emulator.router);
  options.routes?.(app);
  app.get(["/", "/:major(5|6)"], (req, res) => {
    const major = req.params.major === "6" ? "6" : "5";
    res.type("html").send(clerkJsPage({ major, publishableKey, proxyUrl: `${origin}/__clerk`, body: options.body }));
  });
  const server = createServer(app);
  // Longer than a test's browser steps: a kept-alive socket the server closed meanwhile is a reset for the SDK's next call.
  server.keepAliveTimeout = 60_000;
  let browser: Browser | undefined;
  // Playwright starts Chromium as the leader of its own process group and closing it ends the group.
  const stop = async () => {
    const stopped = await Promise.allSettled([
      browser?.close(),
      (async () => {
        server.closeAllConnections();
        await new Promise((done) => server.close(done));
      })(),
    ]);
    emulator.close();
    const failed = stopped.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  };
  try {
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://${options.hostname ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const launched = browser;
  const offLoopback: string[] = [];
  const newContext = () => loopbackOnlyContext(launched, offLoopback);
  const inFreshBrowser = async <R>(fn: (page: Page, context: BrowserContext) => Promise<R>): Promise<R> => {
    const context = await newContext();
    try {
      return await fn(await context.newPage(), context);
    } finally {
      await context.close();
    }
  };
  const onClerkPage = <R>(path: string, fn: (page: Page) => Promise<R>): Promise<R> =>
    inFreshBrowser(async (page) => {
      await page.goto(`${origin}${path}`);
      await loadClerkJs(page);
      return fn(page);
    });
  return {
    origin,
    emulator,
    secretKey,
    publishableKey,
    browser: launched,
    offLoopback,
    newContext,
    inFreshBrowser,
    onClerkPage,
    inClerkJs: (path, fn, args) =>
      onClerkPage(path, async (page) => (await page.evaluate(fn as (arg: unknown) => Promise<unknown>, args)) as never),
    stop,
  };
}

/**
 * A browser app for the test file: started before its tests, stopped after them (even when one
 * failed), with no page having tried to leave loopback. Its fields are there once the tests run.
 */
export function browserAppForTests(options: BrowserAppOptions = {}): BrowserApp {
  const app = {} as BrowserApp;
  beforeAll(async () => {
    Object.assign(app, await startBrowserApp(options));
  }, 60_000);
  afterAll(async () => {
    await app.stop?.();
    expect(app.offLoopback).toEqual([]);
  });
  return app;
}
