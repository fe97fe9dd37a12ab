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

// Clerk's spec user-profile › "add mfa authentication with phone number", in clerk-js 5's <UserProfile/> in
// Chromium: Security › Add two-step verification › SMS code › the person's number › "SMS code verification
// enabled" with backup codes.

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
      src="/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js"></script></head><body><div id="profile"></div></body></html>`);
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

type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string | null }> } };
  mountUserProfile(node: HTMLElement): void;
};

it("<UserProfile/> turns SMS codes on for the person's verified number", async () => {
  const clerk = createClerkClient({ secretKey: SECRET_KEY, apiUrl: `${origin}/__clerk/api` });
  const email = uniqueEmail("sms-profile");
  const user = await clerk.users.createUser({
    emailAddress: [email],
    phoneNumber: ["+447700920002"],
    password: PASSWORD,
  });
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
    await page.evaluate(
      async ({ email, password }) => {
        const w = window as unknown as { Clerk?: ClerkJs };
        while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
        await w.Clerk.load();
        const signIn = await w.Clerk.client.signIn.create({ identifier: email, password });
        await w.Clerk.setActive({ session: signIn.createdSessionId! });
        w.Clerk.mountUserProfile(document.getElementById("profile")!);
      },
      { email, password: PASSWORD },
    );
    await page.getByRole("button", { name: /security/i }).click();
    await page.getByText(/add two-step verification/i).click();
    await page.getByText(/sms code/i).click();
    await page.getByRole("button", { name: /7700 ?920002/ }).click();
    await page.getByText(/sms code verification enabled/i).waitFor({ state: "visible", timeout: 15_000 });
    const after = await clerk.users.getUser(user.id);
    expect([after.twoFactorEnabled, after.backupCodeEnabled]).toEqual([true, true]);
    expect(after.phoneNumbers[0]).toMatchObject({ reservedForSecondFactor: true, defaultSecondFactor: true });
  } finally {
    await context.close();
  }
}, 60_000);
