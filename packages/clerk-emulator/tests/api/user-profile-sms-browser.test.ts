import { createClerkClient } from "@clerk/backend";
import { expect, it } from "vitest";
import { uniqueEmail } from "../../testing";
import { browserAppForTests } from "../support/browser-app";

// Clerk's spec user-profile › "add mfa authentication with phone number", in clerk-js 5's <UserProfile/> in
// Chromium: Security › Add two-step verification › SMS code › the person's number › "SMS code verification
// enabled" with backup codes.

const PASSWORD = "sms-browser-password";
const app = browserAppForTests({ body: `<div id="profile"></div>` });

type ClerkJs = {
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string | null }> } };
  mountUserProfile(node: HTMLElement): void;
};

it("<UserProfile/> turns SMS codes on for the person's verified number", async () => {
  const clerk = createClerkClient({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
  const email = uniqueEmail("sms-profile");
  const user = await clerk.users.createUser({
    emailAddress: [email],
    phoneNumber: ["+447700920002"],
    password: PASSWORD,
  });
  await app.onClerkPage("/", async (page) => {
    await page.evaluate(
      async ({ email, password }) => {
        const Clerk = (window as unknown as { Clerk: ClerkJs }).Clerk;
        const signIn = await Clerk.client.signIn.create({ identifier: email, password });
        await Clerk.setActive({ session: signIn.createdSessionId! });
        Clerk.mountUserProfile(document.getElementById("profile")!);
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
  });
}, 60_000);
