import type { Page } from "@playwright/test";
import { expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { browserAppForTests } from "../support/browser-app";

// Clerk's spec user-avatar.test.ts: the real clerk-js 5 in Chromium mounts <UserAvatar/> for a signed-in
// user with no image of their own, and it shows an image (Clerk's default avatar), loaded from the
// emulator's origin and nowhere else.

const app = browserAppForTests({ body: `<div id="avatar"></div><div id="profile"></div>` });

type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
  user: { hasImage: boolean; imageUrl: string };
  mountUserAvatar(node: HTMLElement): void;
  mountUserProfile(node: HTMLElement): void;
};

/** Signs `identifier` in with the demo password on the page's loaded clerk-js, then mounts a component. */
const signInAndMount = (page: Page, identifier: string, mount: "avatar" | "profile") =>
  page.evaluate(
    async ({ identifier, password, mount }) => {
      const Clerk = (window as unknown as { Clerk: ClerkJs }).Clerk;
      const signIn = await Clerk.client.signIn.create({ identifier, password });
      await Clerk.setActive({ session: signIn.createdSessionId });
      if (mount === "avatar") Clerk.mountUserAvatar(document.getElementById("avatar")!);
      else Clerk.mountUserProfile(document.getElementById("profile")!);
      return { hasImage: Clerk.user.hasImage, imageUrl: Clerk.user.imageUrl };
    },
    { identifier, password: DEMO_PASSWORD, mount },
  );

it("<UserAvatar/> of a user without an image shows the default avatar, served on loopback", async () => {
  await app.onClerkPage("/", async (page) => {
    const user = await signInAndMount(page, "ada@example.com", "avatar");
    expect(user.hasImage).toBe(false);
    expect(user.imageUrl).toContain("/__clerk/images/avatar_placeholder/");

    // What Clerk's page object checks: an image inside .cl-userAvatarBox, visible.
    const image = page.locator(".cl-userAvatarBox").getByRole("img");
    await expect.poll(() => image.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => image.isVisible()).toBe(true);
    // Loaded, not broken (a broken image would make clerk-js fall back to initials).
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await image.getAttribute("src")).toBe(user.imageUrl);
  });
}, 60_000);

// clerk-js's isDefaultImage reads "avatar_placeholder" in the address: <UserProfile/> offers an upload for
// the default avatar, and no "Remove" for a picture nobody uploaded (as against Clerk).
it("<UserProfile/> offers no Remove for the default avatar", async () => {
  await app.onClerkPage("/", async (page) => {
    await signInAndMount(page, "grace@example.com", "profile");
    await page.getByRole("button", { name: /update profile/i }).click();
    await page.getByRole("button", { name: /^upload$/i }).waitFor({ state: "visible", timeout: 15_000 });
    expect(await page.getByRole("button", { name: /^remove$/i }).count()).toBe(0);
  });
}, 60_000);
