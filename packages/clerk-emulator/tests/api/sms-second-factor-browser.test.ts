import { createClerkClient } from "@clerk/backend";
import { expect, it } from "vitest";
import { uniqueEmail } from "../../testing";
import { browserAppForTests } from "../support/browser-app";

// SMS codes as a second factor through clerk-js 5's own resources in Chromium: what <UserProfile/>'s
// "SMS code" calls (PhoneNumber.setReservedForSecondFactor) and what <SignIn/>'s second step calls
// (SignIn.prepareSecondFactor / attemptSecondFactor), so the answers are read as clerk-js reads them.

const PASSWORD = "sms-browser-password";
const app = browserAppForTests();

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

it("reserves a number with PhoneNumber.setReservedForSecondFactor, then signs in with an SMS code", async () => {
  const clerk = createClerkClient({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
  const email = uniqueEmail("sms-browser");
  const phone = "+447700920001";
  await clerk.users.createUser({ emailAddress: [email], phoneNumber: [phone], password: PASSWORD });

  const turnedOn = await app.inClerkJs(
    "/",
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

  const signedIn = await app.inClerkJs(
    "/",
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
