import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createClerkClient } from "@clerk/backend";
import { chromium, type Browser } from "@playwright/test";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClerkEmulator, type ClerkEmulator } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { isLoopbackUrl, uniqueEmail } from "../../testing";
import { REPO_ROOT } from "../support/paths";

// SMS codes as a second factor through clerk-js 5's own resources in Chromium: what <UserProfile/>'s
// "SMS code" calls (PhoneNumber.setReservedForSecondFactor) and what <SignIn/>'s second step calls
// (SignIn.prepareSecondFactor / attemptSecondFactor), so the answers are read as clerk-js reads them.

const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const PASSWORD = "sms-browser-password";
let emulator: ClerkEmulator;
let server: Server;
let origin = "";
let browser: Browser;
const offLoopback: string[] = [];

beforeAll(async () => {
  emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "/__clerk",
    secretKey: SECRET_KEY,
    issuer: EMULATOR_ISSUER,
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
  });
  const app = express();
  app.use("/__clerk", createScriptCdn({ dirs: [join(REPO_ROOT, "node_modules")] }));
  app.use("/__clerk", emulator.router);
  app.get("/", (_req, res) => {
    res.type("html").send(`<!doctype html><html><head><script
      data-clerk-publishable-key="${emulatorPublishableKey()}"
      data-clerk-proxy-url="${origin}/__clerk"
      src="/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js"></script></head><body></body></html>`);
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
  expect(offLoopback).toEqual([]);
});

type Factor = { strategy: string; safeIdentifier?: string; phoneNumberId?: string; default?: boolean };
type SignInResource = {
  status: string;
  createdSessionId: string | null;
  supportedSecondFactors: Factor[] | null;
  secondFactorVerification: { strategy: string | null; status: string | null };
  prepareSecondFactor(params: Record<string, string>): Promise<SignInResource>;
  attemptSecondFactor(params: Record<string, string>): Promise<SignInResource>;
};
type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<SignInResource> } };
  user: {
    twoFactorEnabled: boolean;
    reload(): Promise<unknown>;
    phoneNumbers: {
      id: string;
      setReservedForSecondFactor(params: { reserved: boolean }): Promise<{
        reservedForSecondFactor: boolean;
        defaultSecondFactor: boolean;
        backupCodes?: string[];
      }>;
    }[];
  };
};

/** Runs `fn` in a fresh browser on a page with clerk-js 5, once it has loaded. */
async function inClerkJs<A, R>(fn: (args: A) => Promise<R>, args: A): Promise<R> {
  const context = await browser.newContext();
  await context.route(
    (url) => !isLoopbackUrl(url.href),
    (route) => {
      offLoopback.push(route.request().url());
      return route.abort();
    },
  );
  try {
    const page = await context.newPage();
    await page.goto(origin);
    await page.evaluate(async () => {
      const w = window as unknown as { Clerk?: ClerkJs };
      while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
      await w.Clerk.load();
    });
    return (await page.evaluate(fn as (arg: unknown) => Promise<unknown>, args)) as R;
  } finally {
    await context.close();
  }
}

it("reserves a number with PhoneNumber.setReservedForSecondFactor, then signs in with an SMS code", async () => {
  const clerk = createClerkClient({ secretKey: SECRET_KEY, apiUrl: `${origin}/__clerk/api` });
  const email = uniqueEmail("sms-browser");
  const phone = "+447700920001";
  await clerk.users.createUser({ emailAddress: [email], phoneNumber: [phone], password: PASSWORD });

  const turnedOn = await inClerkJs(
    async ({ email, password }) => {
      const Clerk = (window as unknown as { Clerk: ClerkJs }).Clerk;
      const signIn = await Clerk.client.signIn.create({ identifier: email, password });
      await Clerk.setActive({ session: signIn.createdSessionId! });
      const reserved = await Clerk.user.phoneNumbers[0]!.setReservedForSecondFactor({ reserved: true });
      await Clerk.user.reload();
      return {
        reserved: reserved.reservedForSecondFactor,
        isDefault: reserved.defaultSecondFactor,
        backupCodes: reserved.backupCodes?.length ?? 0,
        twoFactorEnabled: Clerk.user.twoFactorEnabled,
      };
    },
    { email, password: PASSWORD },
  );
  expect(turnedOn).toEqual({ reserved: true, isDefault: true, backupCodes: 10, twoFactorEnabled: true });

  const signedIn = await inClerkJs(
    async ({ email, password }) => {
      const Clerk = (window as unknown as { Clerk: ClerkJs }).Clerk;
      const first = await Clerk.client.signIn.create({ identifier: email, password });
      // clerk-js updates the resource in place: read each step as it is.
      const status = first.status;
      const factors = first.supportedSecondFactors;
      const prepared = await first.prepareSecondFactor({ strategy: "phone_code" });
      const preparedStatus = prepared.secondFactorVerification.status;
      const wrong = await prepared.attemptSecondFactor({ strategy: "phone_code", code: "000000" }).then(
        () => null,
        (e: { errors?: { code: string }[] }) => e.errors?.[0]?.code,
      );
      const done = await prepared.attemptSecondFactor({ strategy: "phone_code", code: "424242" });
      return {
        status,
        factors,
        prepared: preparedStatus,
        wrong,
        done: done.status,
        session: Boolean(done.createdSessionId),
      };
    },
    { email, password: PASSWORD },
  );
  expect(signedIn.status).toBe("needs_second_factor");
  expect(signedIn.factors?.[0]).toMatchObject({ strategy: "phone_code", safeIdentifier: phone, default: true });
  expect(signedIn).toMatchObject({
    prepared: "unverified",
    wrong: "form_code_incorrect",
    done: "complete",
    session: true,
  });
}, 60_000);
