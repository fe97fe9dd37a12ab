import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import express from "express";
import { chromium, type Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClerkEmulator, type ClerkEmulator } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import type { EmailMessage, OutgoingMessage } from "../../src/domain/messages";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { isLoopbackUrl } from "../../testing";
import { CORE3_FIXTURE, REPO_ROOT } from "../support/paths";

// Issue 49: email link sign-in driven by the real clerk-js 5 and 6 in Chromium —
// signIn.create, then createEmailLinkFlow().startEmailLinkFlow, which prepares
// the link and polls the sign-in — while the test reads the link from the
// emulator's outgoing messages and opens it as another device would; clerk-js's
// promise resolves with the verified sign-in, and setActive signs the page in.
let emulator: ClerkEmulator;
let server: Server;
let origin: string;
let browser: Browser;
const sent: OutgoingMessage[] = [];
const offLoopback: string[] = [];

beforeAll(async () => {
  emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "/__clerk",
    secretKey: "sk_live_emulator_email_links_clerk_js",
    issuer: EMULATOR_ISSUER,
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
  });
  emulator.store.onMessage((message) => sent.push(message));
  const app = express();
  app.use(
    "/__clerk",
    createScriptCdn({ dirs: [join(REPO_ROOT, "node_modules"), join(CORE3_FIXTURE, "node_modules")] }),
  );
  app.use("/__clerk", emulator.router);
  // A page of the app: clerk-js loaded through the proxy path, as the app loads it.
  app.get("/:major(5|6)", (req, res) => {
    res.type("html").send(`<!DOCTYPE html><html><body>
<script async crossorigin="anonymous"
  data-clerk-publishable-key="${emulatorPublishableKey()}"
  data-clerk-proxy-url="/__clerk"
  src="/__clerk/npm/@clerk/clerk-js@${req.params.major}/dist/clerk.browser.js"></script>
</body></html>`);
  });
  server = createServer(app);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  emulator?.close();
});

describe("clerk-js's email link flow against the emulator", () => {
  it.each(["5", "6"])(
    "clerk-js %s: startEmailLinkFlow resolves verified once the emailed link is opened elsewhere, and setActive signs the page in",
    async (major) => {
      // A browser of its own for each version: single-session mode would refuse a second sign-in.
      const context = await browser.newContext();
      await context.route(
        (url) => !isLoopbackUrl(url.href),
        (route) => {
          offLoopback.push(route.request().url());
          return route.abort();
        },
      );
      const page = await context.newPage();
      await page.goto(`${origin}/${major}`);
      // The browser bundle makes window.Clerk from the script's data attributes; the page loads it.
      await page.waitForFunction(() => "Clerk" in window, null, { timeout: 30_000 });
      await page.evaluate(() => (window as unknown as { Clerk: { load(): Promise<void> } }).Clerk.load());
      const version = await page.evaluate(() => (window as unknown as { Clerk: { version: string } }).Clerk.version);
      expect(version.split(".")[0]).toBe(major);
      const from = sent.length;
      // Runs in the page: clerk-js's own email link flow, left polling while the test opens the link.
      await page.evaluate(async (redirectUrl) => {
        type Flow = { startEmailLinkFlow(p: { emailAddressId: string; redirectUrl: string }): Promise<unknown> };
        type SignIn = {
          supportedFirstFactors: { strategy: string; emailAddressId?: string }[];
          createEmailLinkFlow(): Flow;
        };
        const clerk = (window as unknown as { Clerk: { client: { signIn: { create(p: object): Promise<SignIn> } } } })
          .Clerk;
        const signIn = await clerk.client.signIn.create({ identifier: "ada@example.com" });
        const factor = signIn.supportedFirstFactors.find((f) => f.strategy === "email_link")!;
        const flow = signIn.createEmailLinkFlow();
        (window as unknown as { linkFlow: Promise<unknown> }).linkFlow = flow.startEmailLinkFlow({
          emailAddressId: factor.emailAddressId!,
          redirectUrl,
        });
      }, `${origin}/sign-in/verify`);

      await expect.poll(() => sent.length, { timeout: 15_000 }).toBeGreaterThan(from);
      const mail = sent.slice(from).find((m): m is EmailMessage => m.object === "email")!;
      expect(mail).toMatchObject({ slug: "magic_link_sign_in", to_email_address: "ada@example.com" });
      const link = mail.data.magic_link as string;
      expect(link.startsWith(`${origin}/__clerk/v1/verify?token=`)).toBe(true);
      // Another device: no cookies; it lands on the app's page with Clerk's status.
      const opened = await fetch(link, { redirect: "manual" });
      const landing = new URL(opened.headers.get("location")!);
      expect(landing.searchParams.get("__clerk_status")).toBe("verified");

      const result = await page.evaluate(async () => {
        const w = window as unknown as {
          linkFlow: Promise<{
            status: string;
            createdSessionId: string;
            firstFactorVerification: { status: string; strategy: string };
          }>;
          Clerk: { setActive(p: { session: string }): Promise<void>; user: { id: string } | null };
        };
        const signIn = await w.linkFlow;
        await w.Clerk.setActive({ session: signIn.createdSessionId });
        return {
          status: signIn.status,
          verification: signIn.firstFactorVerification,
          session: signIn.createdSessionId,
          user: w.Clerk.user?.id ?? null,
        };
      });
      expect(result).toMatchObject({
        status: "complete",
        verification: { status: "verified", strategy: "email_link" },
        session: landing.searchParams.get("__clerk_created_session"),
        user: "user_seed_ada",
      });
      expect(offLoopback).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
