import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser } from "@playwright/test";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClerkEmulator, DEMO_PASSWORD, type ClerkEmulator } from "../../src";
import { createScriptCdn } from "../../src/http/cdn";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { isLoopbackUrl } from "../../testing";
import { REPO_ROOT } from "../support/paths";

// Clerk's spec user-avatar.test.ts: the real clerk-js 5 in Chromium mounts <UserAvatar/> for a signed-in
// user with no image of their own, and it shows an image (Clerk's default avatar), loaded from the
// emulator's origin and nowhere else.

const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
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
      src="/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js"></script></head><body><div id="avatar"></div><div id="profile"></div></body></html>`);
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
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
  user: { hasImage: boolean; imageUrl: string };
  mountUserAvatar(node: HTMLElement): void;
  mountUserProfile(node: HTMLElement): void;
};

it("<UserAvatar/> of a user without an image shows the default avatar, served on loopback", async () => {
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
    const user = await page.evaluate(async (password) => {
      const w = window as unknown as { Clerk?: ClerkJs };
      while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
      const Clerk = w.Clerk;
      await Clerk.load();
      const signIn = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
      await Clerk.setActive({ session: signIn.createdSessionId });
      Clerk.mountUserAvatar(document.getElementById("avatar")!);
      return { hasImage: Clerk.user.hasImage, imageUrl: Clerk.user.imageUrl };
    }, DEMO_PASSWORD);
    expect(user.hasImage).toBe(false);
    expect(user.imageUrl).toContain("/__clerk/images/avatar_placeholder/");

    // What Clerk's page object checks: an image inside .cl-userAvatarBox, visible.
    const image = page.locator(".cl-userAvatarBox").getByRole("img");
    await expect.poll(() => image.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => image.isVisible()).toBe(true);
    // Loaded, not broken (a broken image would make clerk-js fall back to initials).
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await image.getAttribute("src")).toBe(user.imageUrl);
  } finally {
    await context.close();
  }
}, 60_000);

// clerk-js's isDefaultImage reads "avatar_placeholder" in the address: <UserProfile/> offers an upload for
// the default avatar, and no "Remove" for a picture nobody uploaded (as against Clerk).
it("<UserProfile/> offers no Remove for the default avatar", async () => {
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
    await page.evaluate(async (password) => {
      const w = window as unknown as { Clerk?: ClerkJs };
      while (!w.Clerk) await new Promise((r) => setTimeout(r, 20));
      await w.Clerk.load();
      const signIn = await w.Clerk.client.signIn.create({ identifier: "grace@example.com", password });
      await w.Clerk.setActive({ session: signIn.createdSessionId });
      w.Clerk.mountUserProfile(document.getElementById("profile")!);
    }, DEMO_PASSWORD);
    await page.getByRole("button", { name: /update profile/i }).click();
    await page.getByRole("button", { name: /^upload$/i }).waitFor({ state: "visible", timeout: 15_000 });
    expect(await page.getByRole("button", { name: /^remove$/i }).count()).toBe(0);
  } finally {
    await context.close();
  }
}, 60_000);
