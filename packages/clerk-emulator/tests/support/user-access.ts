import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { backendSdks, type BackendClient } from "./clerk-sdks";
import { webhookBreaches } from "../../contract";
import {
  errorCode,
  frontendClient,
  newWebhookSecret,
  startInProcessEmulator,
  startWebhookSink,
  type InProcessEmulator,
  type VerifiedWebhook,
} from "../../testing";

/**
 * What the tests of the Backend API's users, email addresses and restrictions
 * share: both of Clerk's SDK lines, an in-process emulator whose webhooks a
 * loopback sink receives and verifies as an app does, and the Frontend API's
 * sign-in and sign-up as a fresh browser meets them.
 */

export type Clerk = BackendClient;
/** @clerk/backend 2 (this app's) and 3 (tests/fixtures/core3's), each as a factory. */
export const sdks = backendSdks;

export const PASSWORD = "access-password-1";

/** What @clerk/backend 3 adds to `users` (absent in 2, whose tests call the Backend API directly instead). */
export type Core3Users = Clerk["users"] & {
  removePassword?(userId: string, params: { signOutOfOtherSessions?: boolean }): Promise<{ raw: unknown }>;
  replaceUserMetadata?(userId: string, params: { publicMetadata?: object }): Promise<{ raw: unknown }>;
  replaceUserEmailAddress?(
    userId: string,
    params: { emailAddress: string },
  ): Promise<{ id: string; emailAddress: string; verification: { status: string } | null }>;
};

export type Received = VerifiedWebhook;

export type EmulatorWithWebhooks = {
  emu: InProcessEmulator;
  secretKey: string;
  /** Every webhook received, in order. */
  received: Received[];
  /** The webhooks about `id` (a user's, a session's user's, an email's address), once `count` have come. */
  eventsAbout(id: string, count: number): Promise<Received[]>;
  /** Clerk's spec broken by any webhook received (its webhooks OpenAPI). */
  webhookBreaches(): string[];
  /** A password sign-in on a fresh browser: the sign-in's status, or Clerk's error code. */
  signIn(identifier: string, password?: string): Promise<string | undefined>;
  /** An email-code sign-in on a fresh browser (the code is always the test code). */
  signInWithCode(identifier: string): Promise<string | undefined>;
  /** A sign-up's first step on a fresh browser: its status, or Clerk's error code. */
  signUp(email: string, form?: Record<string, string>): Promise<string | undefined>;
  close(): Promise<void>;
};

export async function startEmulatorWithWebhooks(): Promise<EmulatorWithWebhooks> {
  const secret = newWebhookSecret();
  const received: Received[] = [];
  const sink = await startWebhookSink(secret, (e) => received.push(e));
  const url = sink.url;
  const secretKey = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
  const emu = await startInProcessEmulator({ secretKey, webhooks: { url, secret } });

  const status = (r: Awaited<ReturnType<ReturnType<typeof frontendClient>>>) =>
    r.status === 200 ? (r.body.response.status as string) : errorCode(r);

  return {
    emu,
    secretKey,
    received,
    async eventsAbout(id, count) {
      const about = (e: Received) =>
        e.data.id === id || e.data.user_id === id || e.data.to_email_address === id || e.data.user?.id === id;
      await expect.poll(() => received.filter(about).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
      return received.filter(about);
    },
    webhookBreaches: () => received.flatMap((e) => webhookBreaches(e.body)),
    async signIn(identifier, password = PASSWORD) {
      return status(await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", { identifier, password }));
    },
    async signInWithCode(identifier) {
      const browser = frontendClient(emu.origin);
      const started = await browser("POST", "/v1/client/sign_ins", { identifier, strategy: "email_code" });
      if (started.status !== 200) return errorCode(started);
      const id = started.body.response.id as string;
      return status(
        await browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, {
          strategy: "email_code",
          code: "424242",
        }),
      );
    },
    async signUp(email, form = {}) {
      return status(
        await frontendClient(emu.origin)("POST", "/v1/client/sign_ups", {
          email_address: email,
          password: PASSWORD,
          ...form,
        }),
      );
    },
    async close() {
      await emu.close();
      await sink.close();
    },
  };
}

/** What an @clerk/backend call rejected with: Clerk's status, first error code and its meta. */
export async function apiError(call: Promise<unknown>) {
  const error = (await call.then(
    () => null,
    (e: unknown) => e,
  )) as { status?: number; errors?: { code: string; meta?: Record<string, unknown> }[] } | null;
  return { status: error?.status, code: error?.errors?.[0]?.code, meta: error?.errors?.[0]?.meta };
}
