import { beforeAll, describe, expect, it } from "vitest";
import type { EmailMessage, OutgoingMessage } from "../../src/domain/messages";
import { browserAppForTests } from "../support/browser-app";

// Issue 49: email link sign-in driven by the real clerk-js 5 and 6 in Chromium —
// signIn.create, then createEmailLinkFlow().startEmailLinkFlow, which prepares
// the link and polls the sign-in — while the test reads the link from the
// emulator's outgoing messages and opens it as another device would; clerk-js's
// promise resolves with the verified sign-in, and setActive signs the page in.
const app = browserAppForTests();
const sent: OutgoingMessage[] = [];

beforeAll(() => {
  app.emulator.store.onMessage((message) => sent.push(message));
});

describe("clerk-js's email link flow against the emulator", () => {
  it.each(["5", "6"])(
    "clerk-js %s: startEmailLinkFlow resolves verified once the emailed link is opened elsewhere, and setActive signs the page in",
    async (major) => {
      // A browser of its own for each version: single-session mode would refuse a second sign-in.
      // The browser bundle makes window.Clerk from the script's data attributes; the page loads it.
      await app.onClerkPage(`/${major}`, async (page) => {
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
        }, `${app.origin}/sign-in/verify`);

        await expect.poll(() => sent.length, { timeout: 15_000 }).toBeGreaterThan(from);
        const mail = sent.slice(from).find((m): m is EmailMessage => m.object === "email")!;
        expect(mail).toMatchObject({ slug: "magic_link_sign_in", to_email_address: "ada@example.com" });
        const link = mail.data.magic_link as string;
        expect(link.startsWith(`${app.origin}/__clerk/v1/verify?token=`)).toBe(true);
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
        expect(app.offLoopback).toEqual([]);
      });
    },
    60_000,
  );
});
