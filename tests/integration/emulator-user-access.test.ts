import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createClerkClient as createCore2Client } from "@clerk/backend";
import { verifyWebhook } from "@clerk/backend/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  errorCode,
  frontendClient,
  startInProcessEmulator,
  uniqueEmail,
  type InProcessEmulator,
} from "../support/emulator-api";
import { ROOT } from "../support/server";
import { webhookBreaches } from "../support/webhook-contract";
import { newWebhookSecret } from "../support/webhooks";

// The Backend API's users, email addresses and allow-list/block-list, called
// by both of Clerk's SDK lines (@clerk/backend 2 and 3), and what each change
// does where it matters: at the Frontend API's sign-in and sign-up, over HTTP.

const core3Require = createRequire(join(ROOT, "tests/fixtures/core3/package.json"));
type Clerk = ReturnType<typeof createCore2Client>;
type CreateClient = (options: { secretKey: string; apiUrl: string }) => Clerk;

const sdks: [string, () => Promise<CreateClient>][] = [
  ["@clerk/backend 2 (Core 2)", async () => createCore2Client as unknown as CreateClient],
  [
    "@clerk/backend 3 (Core 3)",
    async () => {
      expect((core3Require("@clerk/backend/package.json") as { version: string }).version).toMatch(/^3\./);
      return ((await import(core3Require.resolve("@clerk/backend"))) as { createClerkClient: CreateClient })
        .createClerkClient;
    },
  ],
];

const PASSWORD = "access-password-1";
const secretKey = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const WEBHOOK_SECRET = newWebhookSecret();
type Received = { type: string; data: Record<string, any>; body: { type: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
const received: Received[] = [];
let sink: Server;
let emu: InProcessEmulator;

beforeAll(async () => {
  // Where the emulator sends its webhooks, verified as an app verifies Clerk's and checked against Clerk's spec.
  sink = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = new Headers(req.headers as Record<string, string>);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body });
      void verifyWebhook(request, { signingSecret: WEBHOOK_SECRET }).then(
        (event) => {
          received.push({
            type: event.type,
            data: event.data as unknown as Record<string, unknown>,
            body: JSON.parse(body) as { type: string },
          });
          res.writeHead(200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((done) => sink.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hooks`;
  emu = await startInProcessEmulator({ secretKey, webhooks: { url, secret: WEBHOOK_SECRET } });
});
afterAll(async () => {
  await emu?.close();
  await new Promise((done) => sink?.close(done));
});

/** The webhooks about `id` (a user's, a session's user's, an email's address) received so far, once `count` have come. */
async function eventsAbout(id: string, count: number): Promise<Received[]> {
  const about = (e: Received) =>
    e.data.id === id || e.data.user_id === id || e.data.to_email_address === id || e.data.user?.id === id;
  await expect.poll(() => received.filter(about).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return received.filter(about);
}
afterEach(() => {
  vi.useRealTimers();
  // Every webhook received keeps Clerk's spec for its event type.
  expect(received.flatMap((e) => webhookBreaches(e.body))).toEqual([]);
});

/** A password sign-in on a fresh browser: the sign-in's status, or Clerk's error code. */
async function signIn(identifier: string, password = PASSWORD) {
  const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", { identifier, password });
  return r.status === 200 ? (r.body.response.status as string) : errorCode(r);
}

/** An email-code sign-in (the code is always the test code). */
async function signInWithCode(identifier: string) {
  const browser = frontendClient(emu.origin);
  const started = await browser("POST", "/v1/client/sign_ins", { identifier, strategy: "email_code" });
  if (started.status !== 200) return errorCode(started);
  const id = started.body.response.id as string;
  const done = await browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, {
    strategy: "email_code",
    code: "424242",
  });
  return done.status === 200 ? (done.body.response.status as string) : errorCode(done);
}

/** A sign-up's first step on a fresh browser: its status, or Clerk's error code. */
async function signUp(email: string, form: Record<string, string> = {}) {
  const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ups", {
    email_address: email,
    password: PASSWORD,
    ...form,
  });
  return r.status === 200 ? (r.body.response.status as string) : errorCode(r);
}

const apiError = async (call: Promise<unknown>) => {
  const error = (await call.then(
    () => null,
    (e: unknown) => e,
  )) as { status?: number; errors?: { code: string; meta?: Record<string, unknown> }[] } | null;
  return { status: error?.status, code: error?.errors?.[0]?.code, meta: error?.errors?.[0]?.meta };
};

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe.each(sdks)("%s", (_name, load) => {
  let clerk: Clerk;
  beforeAll(async () => {
    clerk = (await load())({ secretKey, apiUrl: `${emu.origin}/__clerk/api` });
  });
  const newUser = async (name: string) => {
    const email = uniqueEmail(name);
    const user = await clerk.users.createUser({ emailAddress: [email], password: PASSWORD });
    return { id: user.id, email };
  };

  it("bans a user: their sessions are revoked and sign-in is refused with user_banned until unbanned", async () => {
    const { id, email } = await newUser("banned");
    expect(await signIn(email)).toBe("complete");
    const banned = await clerk.users.banUser(id);
    expect(banned.banned).toBe(true);
    const sessions = await emu.bapi("GET", `/v1/sessions?user_id=${id}`);
    expect((sessions.body as { status: string }[]).map((s) => s.status)).toEqual(["revoked"]);
    expect(await signIn(email)).toBe("user_banned");
    expect(await signInWithCode(email)).toBe("user_banned");
    const listed = await emu.bapi("GET", `/v1/users?banned=true&email_address=${encodeURIComponent(email)}`);
    expect(listed.body.map((u: { id: string }) => u.id)).toEqual([id]);

    expect((await clerk.users.unbanUser(id)).banned).toBe(false);
    expect(await signIn(email)).toBe("complete");
    // As Clerk: the ban and the unban are user.updated, the revoked session session.revoked.
    const events = (await eventsAbout(id, 6)).map((e) => [e.type, e.data.banned ?? e.data.status]);
    expect(events).toEqual([
      ["user.created", false],
      ["session.created", "active"],
      ["user.updated", true],
      ["session.revoked", "revoked"],
      ["user.updated", false],
      ["session.created", "active"],
    ]);
  });

  it("bans and unbans up to 50 users at once, refusing an unknown id before changing anyone", async () => {
    const [a, b] = [await newUser("bulk-a"), await newUser("bulk-b")];
    const unknown = await emu.bapi("POST", "/v1/users/ban", { user_ids: [a.id, "user_missing"] });
    expect(unknown.status).toBe(404);
    expect((await clerk.users.getUser(a.id)).banned).toBe(false);
    expect(errorCode(await emu.bapi("POST", "/v1/users/ban", { user_ids: [] }))).toBe("form_param_missing");

    const banned = await emu.bapi("POST", "/v1/users/ban", { user_ids: [a.id, b.id] });
    expect(banned.status).toBe(200);
    expect(banned.body.map((u: { banned: boolean }) => u.banned)).toEqual([true, true]);
    expect(await signIn(b.email)).toBe("user_banned");
    const unbanned = await emu.bapi("POST", "/v1/users/unban", { user_ids: [a.id, b.id] });
    expect(unbanned.body.map((u: { banned: boolean }) => u.banned)).toEqual([false, false]);
    expect(await signIn(a.email)).toBe("complete");
  });

  it("locks a user for the lockout duration: user_locked with the seconds left, until unlocked or lapsed", async () => {
    const { id, email } = await newUser("locked");
    const locked = await clerk.users.lockUser(id);
    expect(locked.locked).toBe(true);
    // The SDKs' User keeps these two only in its raw JSON.
    expect(locked.raw).toMatchObject({ lockout_expires_in_seconds: 3600, verification_attempts_remaining: 100 });
    const refused = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: email,
      password: PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: "user_locked", meta: { lockout_expires_in_seconds: 3600 } });

    const unlocked = await clerk.users.unlockUser(id);
    expect([unlocked.locked, unlocked.raw?.lockout_expires_in_seconds]).toEqual([false, null]);
    expect(await signIn(email)).toBe("complete");

    // An hour later a lock has lapsed by itself.
    await clerk.users.lockUser(id);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3601_000 });
    expect((await clerk.users.getUser(id)).locked).toBe(false);
    expect(await signIn(email)).toBe("complete");
  });

  it("verifies a password, and a compromised one no longer signs in until it is changed", async () => {
    const { id, email } = await newUser("compromised");
    expect(await clerk.users.verifyPassword({ userId: id, password: PASSWORD })).toEqual({ verified: true });
    expect(await apiError(clerk.users.verifyPassword({ userId: id, password: "wrong-password" }))).toMatchObject({
      status: 422,
      code: "form_password_incorrect",
    });

    await clerk.users.setPasswordCompromised(id);
    expect(await signIn(email)).toBe("form_password_compromised");
    // Another method still works, as clerk-js offers it.
    expect(await signInWithCode(email)).toBe("complete");
    await clerk.users.unsetPasswordCompromised(id);
    expect(await signIn(email)).toBe("complete");

    await clerk.users.setPasswordCompromised(id);
    await clerk.users.updateUser(id, { password: "a-fresh-password-2" });
    expect(await signIn(email, "a-fresh-password-2")).toBe("complete");
  });

  it("removes a password (signing out other sessions when asked), after which only codes sign in", async () => {
    const { id, email } = await newUser("no-password");
    expect(await signIn(email)).toBe("complete");
    const removed = await emu.bapi("POST", `/v1/users/${id}/remove_password`, { sign_out_of_other_sessions: true });
    expect(removed.body.password_enabled).toBe(false);
    const sessions = await emu.bapi("GET", `/v1/sessions?user_id=${id}&status=active`);
    expect(sessions.body).toEqual([]);
    expect(await signIn(email)).toBe("form_password_incorrect");
    expect(await signInWithCode(email)).toBe("complete");
    expect(errorCode(await emu.bapi("POST", `/v1/users/${id}/verify_password`, { password: PASSWORD }))).toBe(
      "password_not_set",
    );
  });

  it("uploads and deletes a profile image as a multipart form", async () => {
    const { id } = await newUser("image");
    const withImage = await clerk.users.updateUserProfileImage(id, {
      file: new Blob([new Uint8Array(PNG)], { type: "image/png" }),
    });
    expect(withImage.hasImage).toBe(true);
    const served = await fetch(withImage.imageUrl.replace(/^.*\/images\//, `${emu.origin}/__clerk/images/`));
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect((await clerk.users.deleteUserProfileImage(id)).hasImage).toBe(false);
  });

  it("replaces metadata whole with PUT, where PATCH merges", async () => {
    const { id } = await newUser("metadata");
    await clerk.users.updateUserMetadata(id, { publicMetadata: { a: { x: 1 }, b: 2 }, privateMetadata: { p: 1 } });
    const replaced = await emu.bapi("PUT", `/v1/users/${id}/metadata`, { public_metadata: { a: { y: 2 } } });
    expect(replaced.status).toBe(200);
    expect([replaced.body.public_metadata, replaced.body.private_metadata]).toEqual([{ a: { y: 2 } }, { p: 1 }]);
  });

  it("has no trusted devices: they are native apps' (off on this instance)", async () => {
    const { id } = await newUser("devices");
    expect((await emu.bapi("GET", `/v1/users/${id}/trusted_devices`)).body).toEqual({ data: [], total_count: 0 });
    expect((await emu.bapi("DELETE", `/v1/users/${id}/trusted_devices/td_123`)).status).toBe(404);
  });

  it("adds, verifies, makes primary and deletes email addresses, the user and sign-in following", async () => {
    const { id, email } = await newUser("emails");
    const second = uniqueEmail("second");
    const added = await clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: second });
    expect(added.verification?.status).toBe("unverified");
    expect(await signIn(second)).toBe("form_identifier_not_found");
    expect(await apiError(clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: email }))).toMatchObject({
      code: "form_identifier_exists",
    });
    expect(await apiError(clerk.emailAddresses.updateEmailAddress(added.id, { primary: true }))).toMatchObject({
      code: "form_param_value_invalid",
    });

    const verified = await clerk.emailAddresses.updateEmailAddress(added.id, { verified: true, primary: true });
    expect(verified.verification?.status).toBe("verified");
    const user = await clerk.users.getUser(id);
    expect(user.primaryEmailAddressId).toBe(added.id);
    expect(await signIn(second)).toBe("complete");
    expect((await clerk.emailAddresses.getEmailAddress(added.id)).emailAddress).toBe(second);

    expect(await apiError(clerk.emailAddresses.deleteEmailAddress(added.id))).toMatchObject({
      code: "primary_identification_deletion_not_allowed",
    });
    const oldId = user.emailAddresses.find((e) => e.emailAddress === email)!.id;
    expect(await clerk.emailAddresses.deleteEmailAddress(oldId)).toMatchObject({ id: oldId, deleted: true });
    expect(await signIn(email)).toBe("form_identifier_not_found");
    expect(await apiError(clerk.emailAddresses.getEmailAddress(oldId))).toMatchObject({ status: 404 });
  });

  it("verifies an address with a code sent through the Backend API; a wrong code is told by the status", async () => {
    const { id } = await newUser("code");
    const address = uniqueEmail("coded");
    const added = await clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: address });
    const prepared = await emu.bapi("POST", `/v1/email_addresses/${added.id}/prepare_verification`);
    expect(prepared.body).toMatchObject({ status: "unverified", strategy: "email_code", attempts: 0 });
    // The code goes out as Clerk's verification email (email.created).
    const [mail] = await eventsAbout(address, 1);
    expect(mail).toMatchObject({
      type: "email.created",
      data: { slug: "verification_code", email_address_id: added.id, user_id: id, data: { otp_code: "424242" } },
    });
    const attempt = (code: string) =>
      emu.bapi("POST", `/v1/email_addresses/${added.id}/attempt_verification`, {
        verification_id: prepared.body.id,
        code,
      });
    expect((await attempt("000000")).body).toMatchObject({ status: "unverified", attempts: 1 });
    expect((await attempt("424242")).body).toMatchObject({ status: "verified", attempts: 2 });
    expect(errorCode(await attempt("424242"))).toBe("verification_already_verified");
    expect((await clerk.emailAddresses.getEmailAddress(added.id)).verification?.status).toBe("verified");
  });

  it("replaces all of a user's addresses with one primary address", async () => {
    const { id, email } = await newUser("replace");
    const next = uniqueEmail("replaced");
    const replaced = await emu.bapi("PUT", `/v1/users/${id}/email_address`, { email_address: next });
    expect(replaced.body).toMatchObject({ email_address: next, verification: { status: "verified" } });
    const user = await clerk.users.getUser(id);
    expect(user.emailAddresses.map((e) => e.emailAddress)).toEqual([next]);
    expect(user.primaryEmailAddressId).toBe(replaced.body.id);
    expect(await signIn(email)).toBe("form_identifier_not_found");
    expect(await signIn(next)).toBe("complete");
    const reserved = await emu.bapi("PUT", `/v1/users/${id}/email_address`, {
      email_address: next,
      identification_status: "reserved",
    });
    expect(errorCode(reserved)).toBe("form_param_value_invalid");
  });

  it("restricts sign-up to the allow-list (an invitation bypasses it) and refuses the block-list", async () => {
    const insider = uniqueEmail("insider");
    const existing = await newUser("existing");
    const entry = await clerk.allowlistIdentifiers.createAllowlistIdentifier({ identifier: insider, notify: false });
    expect(entry).toMatchObject({ identifier: insider, identifierType: "email_address" });
    const listed = await clerk.allowlistIdentifiers.getAllowlistIdentifierList();
    expect(listed.data.map((e) => e.id)).toContain(entry.id);
    expect(listed.totalCount).toBe(listed.data.length);
    // notify: the address is invited too, and the invitation emailed.
    const notified = uniqueEmail("notified");
    const invitedEntry = await clerk.allowlistIdentifiers.createAllowlistIdentifier({
      identifier: notified,
      notify: true,
    });
    const [invitationMail] = await eventsAbout(notified, 1);
    expect(invitationMail).toMatchObject({ type: "email.created", data: { slug: "invitation" } });
    const invitations = await emu.bapi("GET", "/v1/invitations?status=pending");
    expect(invitations.body.find((i: { email_address: string }) => i.email_address === notified)?.id).toBe(
      invitedEntry.invitationId,
    );
    await clerk.allowlistIdentifiers.deleteAllowlistIdentifier(invitedEntry.id);
    try {
      const restrictions = await clerk.instance.updateRestrictions({ allowlist: true });
      expect(restrictions).toMatchObject({ allowlist: true, blocklist: false });
      const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
      expect(environment.body.user_settings.restrictions.allowlist).toEqual({ enabled: true });

      expect(await signUp(uniqueEmail("stranger"))).toBe("not_allowed_access");
      expect(await signUp(insider)).toBe("missing_requirements");
      // Clerk applies the lists at sign-in too, unless the instance says otherwise.
      expect(await signIn(existing.email)).toBe("not_allowed_access");
      // Not in @clerk/backend 2's types: sent as Clerk names it.
      await emu.bapi("PATCH", "/v1/instance/restrictions", { allowlist_blocklist_disabled_on_sign_in: true });
      expect(await signIn(existing.email)).toBe("complete");

      const invited = uniqueEmail("invited");
      const invitation = await clerk.invitations.createInvitation({ emailAddress: invited, notify: false });
      const ticket = new URL(invitation.url!).searchParams.get("ticket") ?? "";
      expect(await signUp(invited, { strategy: "ticket", ticket })).toBe("complete");

      await clerk.instance.updateRestrictions({ allowlist: false, blocklist: true });
      const blocked = await clerk.blocklistIdentifiers.createBlocklistIdentifier({ identifier: "*@blocked.test" });
      expect((await clerk.blocklistIdentifiers.getBlocklistIdentifierList()).data.map((e) => e.id)).toContain(
        blocked.id,
      );
      expect(await signUp("someone@blocked.test")).toBe("not_allowed_access");
      expect(await signUp(uniqueEmail("free"))).toBe("missing_requirements");
      await clerk.blocklistIdentifiers.deleteBlocklistIdentifier(blocked.id);
      expect(await signUp("someone@blocked.test")).toBe("missing_requirements");

      await clerk.instance.updateRestrictions({ blocklist: false, blockEmailSubaddresses: true });
      expect(await signUp(uniqueEmail("plus").replace("@", "+tag@"))).toBe("form_email_address_blocked");
      await clerk.instance.updateRestrictions({ blockEmailSubaddresses: false, blockDisposableEmailDomains: true });
      expect(await signUp("throwaway@mailinator.com")).toBe("form_email_address_blocked");
      expect(await signUp(uniqueEmail("kept").replace("@", "+tag@"))).toBe("missing_requirements");
    } finally {
      await emu.bapi("PATCH", "/v1/instance/restrictions", {
        allowlist: false,
        blocklist: false,
        allowlist_blocklist_disabled_on_sign_in: false,
        block_email_subaddresses: false,
        block_disposable_email_domains: false,
      });
      await clerk.allowlistIdentifiers.deleteAllowlistIdentifier(entry.id);
    }
    expect(await signUp(uniqueEmail("stranger"))).toBe("missing_requirements");
  });
});

describe("bans and locks without an SDK", () => {
  it("creates a user banned or locked from the start", async () => {
    const [banned, locked] = [uniqueEmail("born-banned"), uniqueEmail("born-locked")];
    const a = await emu.bapi("POST", "/v1/users", { email_address: [banned], password: PASSWORD, banned: true });
    const b = await emu.bapi("POST", "/v1/users", { email_address: [locked], password: PASSWORD, locked: true });
    expect([a.body.banned, b.body.locked]).toEqual([true, true]);
    expect([await signIn(banned), await signIn(locked)]).toEqual(["user_banned", "user_locked"]);
  });

  it("locks an account after 100 failed attempts, the user JSON counting them down", async () => {
    const email = uniqueEmail("brute");
    const created = await emu.bapi("POST", "/v1/users", { email_address: [email], password: PASSWORD });
    const browser = frontendClient(emu.origin);
    // Wrong codes count as wrong passwords do (and cost no password hashing).
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_code" });
    const id = started.body.response.id as string;
    const attempt = (code: string) =>
      browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, { strategy: "email_code", code });
    for (let i = 0; i < 99; i++) expect(errorCode(await attempt("000000"))).toBe("form_code_incorrect");
    const user = await emu.bapi("GET", `/v1/users/${created.body.id}`);
    expect([user.body.locked, user.body.verification_attempts_remaining]).toEqual([false, 1]);
    expect(errorCode(await attempt("000000"))).toBe("form_code_incorrect");
    expect(errorCode(await attempt("424242"))).toBe("user_locked");
    expect(await signIn(email)).toBe("user_locked");
    const locked = await emu.bapi("GET", `/v1/users/${created.body.id}`);
    expect([locked.body.locked, locked.body.verification_attempts_remaining]).toEqual([true, 0]);
    // A wrong code is no user.updated; the lock it causes is.
    const isUpdate = (e: Received) => e.type === "user.updated" && e.data.id === created.body.id;
    await expect.poll(() => received.filter(isUpdate).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(received.filter(isUpdate).map((e) => e.data.locked)).toEqual([true]);
  });
});
