import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { errorCode, frontendClient, uniqueEmail } from "../../testing";
import {
  apiError,
  PASSWORD,
  sdks,
  startEmulatorWithWebhooks,
  type Clerk,
  type Core3Users,
  type EmulatorWithWebhooks,
  type Received,
} from "../support/user-access";

// The Backend API's bans, locks and password standing, the profile image and
// metadata, called by both of Clerk's SDK lines (@clerk/backend 2 and 3), and
// what each does where it matters: at the Frontend API's sign-in, over HTTP.

let env: EmulatorWithWebhooks;
beforeAll(async () => {
  env = await startEmulatorWithWebhooks();
});
afterAll(async () => {
  await env?.close();
});
afterEach(() => {
  vi.useRealTimers();
  // Every webhook received keeps Clerk's spec for its event type.
  expect(env.webhookBreaches()).toEqual([]);
});

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe.each(sdks)("%s", (_name, load) => {
  let clerk: Clerk;
  beforeAll(async () => {
    clerk = (await load())({ secretKey: env.secretKey, apiUrl: `${env.emu.origin}/__clerk/api` });
  });
  const newUser = async (name: string) => {
    const email = uniqueEmail(name);
    const user = await clerk.users.createUser({ emailAddress: [email], password: PASSWORD });
    return { id: user.id, email };
  };

  it("bans a user: their sessions are revoked and sign-in is refused with user_banned until unbanned", async () => {
    const { id, email } = await newUser("banned");
    expect(await env.signIn(email)).toBe("complete");
    const banned = await clerk.users.banUser(id);
    expect(banned.banned).toBe(true);
    const sessions = await env.emu.bapi("GET", `/v1/sessions?user_id=${id}`);
    expect((sessions.body as { status: string }[]).map((s) => s.status)).toEqual(["revoked"]);
    expect(await env.signIn(email)).toBe("user_banned");
    expect(await env.signInWithCode(email)).toBe("user_banned");
    const listed = await env.emu.bapi("GET", `/v1/users?banned=true&email_address=${encodeURIComponent(email)}`);
    expect(listed.body.map((u: { id: string }) => u.id)).toEqual([id]);

    expect((await clerk.users.unbanUser(id)).banned).toBe(false);
    expect(await env.signIn(email)).toBe("complete");
    // As Clerk: the ban and the unban are user.updated, the revoked session session.revoked.
    const events = (await env.eventsAbout(id, 6)).map((e) => [e.type, e.data.banned ?? e.data.status]);
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
    const unknown = await env.emu.bapi("POST", "/v1/users/ban", { user_ids: [a.id, "user_missing"] });
    expect(unknown.status).toBe(404);
    expect((await clerk.users.getUser(a.id)).banned).toBe(false);
    expect(errorCode(await env.emu.bapi("POST", "/v1/users/ban", { user_ids: [] }))).toBe("form_param_missing");

    const banned = await env.emu.bapi("POST", "/v1/users/ban", { user_ids: [a.id, b.id] });
    expect(banned.status).toBe(200);
    expect(banned.body.map((u: { banned: boolean }) => u.banned)).toEqual([true, true]);
    expect(await env.signIn(b.email)).toBe("user_banned");
    const unbanned = await env.emu.bapi("POST", "/v1/users/unban", { user_ids: [a.id, b.id] });
    expect(unbanned.body.map((u: { banned: boolean }) => u.banned)).toEqual([false, false]);
    expect(await env.signIn(a.email)).toBe("complete");
  });

  it("locks a user for the lockout duration: user_locked with the seconds left, until unlocked or lapsed", async () => {
    const { id, email } = await newUser("locked");
    const locked = await clerk.users.lockUser(id);
    expect(locked.locked).toBe(true);
    // The SDKs' User keeps these two only in its raw JSON.
    expect(locked.raw).toMatchObject({ lockout_expires_in_seconds: 3600, verification_attempts_remaining: 100 });
    const refused = await frontendClient(env.emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: email,
      password: PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: "user_locked", meta: { lockout_expires_in_seconds: 3600 } });

    const unlocked = await clerk.users.unlockUser(id);
    expect([unlocked.locked, unlocked.raw?.lockout_expires_in_seconds]).toEqual([false, null]);
    expect(await env.signIn(email)).toBe("complete");

    // An hour later a lock has lapsed by itself.
    await clerk.users.lockUser(id);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3601_000 });
    expect((await clerk.users.getUser(id)).locked).toBe(false);
    expect(await env.signIn(email)).toBe("complete");
  });

  it("verifies a password, and a compromised one no longer signs in until it is changed", async () => {
    const { id, email } = await newUser("compromised");
    expect(await clerk.users.verifyPassword({ userId: id, password: PASSWORD })).toEqual({ verified: true });
    expect(await apiError(clerk.users.verifyPassword({ userId: id, password: "wrong-password" }))).toMatchObject({
      status: 422,
      code: "form_password_incorrect",
    });

    await clerk.users.setPasswordCompromised(id);
    expect(await env.signIn(email)).toBe("form_password_compromised");
    // Another method still works, as clerk-js offers it.
    expect(await env.signInWithCode(email)).toBe("complete");
    await clerk.users.unsetPasswordCompromised(id);
    expect(await env.signIn(email)).toBe("complete");

    await clerk.users.setPasswordCompromised(id);
    await clerk.users.updateUser(id, { password: "a-fresh-password-2" });
    expect(await env.signIn(email, "a-fresh-password-2")).toBe("complete");
  });

  it("removes a password (signing out other sessions when asked), after which only codes sign in", async () => {
    const { id, email } = await newUser("no-password");
    expect(await env.signIn(email)).toBe("complete");
    const users = clerk.users as Core3Users;
    const removed = users.removePassword
      ? (await users.removePassword(id, { signOutOfOtherSessions: true })).raw
      : (await env.emu.bapi("POST", `/v1/users/${id}/remove_password`, { sign_out_of_other_sessions: true })).body;
    expect(removed).toMatchObject({ password_enabled: false });
    const sessions = await env.emu.bapi("GET", `/v1/sessions?user_id=${id}&status=active`);
    expect(sessions.body).toEqual([]);
    expect(await env.signIn(email)).toBe("form_password_incorrect");
    expect(await env.signInWithCode(email)).toBe("complete");
    expect(errorCode(await env.emu.bapi("POST", `/v1/users/${id}/verify_password`, { password: PASSWORD }))).toBe(
      "password_not_set",
    );
  });

  it("uploads and deletes a profile image as a multipart form", async () => {
    const { id } = await newUser("image");
    const withImage = await clerk.users.updateUserProfileImage(id, {
      file: new Blob([new Uint8Array(PNG)], { type: "image/png" }),
    });
    expect(withImage.hasImage).toBe(true);
    const served = await fetch(withImage.imageUrl.replace(/^.*\/images\//, `${env.emu.origin}/__clerk/images/`));
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect((await clerk.users.deleteUserProfileImage(id)).hasImage).toBe(false);
  });

  it("replaces metadata whole with PUT, where PATCH merges", async () => {
    const { id } = await newUser("metadata");
    await clerk.users.updateUserMetadata(id, { publicMetadata: { a: { x: 1 }, b: 2 }, privateMetadata: { p: 1 } });
    const users = clerk.users as Core3Users;
    const replaced = users.replaceUserMetadata
      ? (await users.replaceUserMetadata(id, { publicMetadata: { a: { y: 2 } } })).raw
      : (await env.emu.bapi("PUT", `/v1/users/${id}/metadata`, { public_metadata: { a: { y: 2 } } })).body;
    expect(replaced).toMatchObject({ public_metadata: { a: { y: 2 } }, private_metadata: { p: 1 } });
    expect((replaced as { public_metadata: object }).public_metadata).toEqual({ a: { y: 2 } });
  });

  it("has no trusted devices: they are native apps' (off on this instance)", async () => {
    const { id } = await newUser("devices");
    expect((await env.emu.bapi("GET", `/v1/users/${id}/trusted_devices`)).body).toEqual({ data: [], total_count: 0 });
    expect((await env.emu.bapi("DELETE", `/v1/users/${id}/trusted_devices/td_123`)).status).toBe(404);
  });
});

describe("bans and locks without an SDK", () => {
  it("creates a user banned or locked from the start", async () => {
    const [banned, locked] = [uniqueEmail("born-banned"), uniqueEmail("born-locked")];
    const a = await env.emu.bapi("POST", "/v1/users", { email_address: [banned], password: PASSWORD, banned: true });
    const b = await env.emu.bapi("POST", "/v1/users", { email_address: [locked], password: PASSWORD, locked: true });
    expect([a.body.banned, b.body.locked]).toEqual([true, true]);
    expect([await env.signIn(banned), await env.signIn(locked)]).toEqual(["user_banned", "user_locked"]);
  });

  it("locks an account after 100 failed attempts, the user JSON counting them down", async () => {
    const email = uniqueEmail("brute");
    const created = await env.emu.bapi("POST", "/v1/users", { email_address: [email], password: PASSWORD });
    const browser = frontendClient(env.emu.origin);
    // Wrong codes count as wrong passwords do (and cost no password hashing).
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_code" });
    const id = started.body.response.id as string;
    const attempt = (code: string) =>
      browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, { strategy: "email_code", code });
    for (let i = 0; i < 99; i++) expect(errorCode(await attempt("000000"))).toBe("form_code_incorrect");
    const user = await env.emu.bapi("GET", `/v1/users/${created.body.id}`);
    expect([user.body.locked, user.body.verification_attempts_remaining]).toEqual([false, 1]);
    expect(errorCode(await attempt("000000"))).toBe("form_code_incorrect");
    expect(errorCode(await attempt("424242"))).toBe("user_locked");
    expect(await env.signIn(email)).toBe("user_locked");
    const locked = await env.emu.bapi("GET", `/v1/users/${created.body.id}`);
    expect([locked.body.locked, locked.body.verification_attempts_remaining]).toEqual([true, 0]);
    // A wrong code is no user.updated; the lock it causes is.
    const isUpdate = (e: Received) => e.type === "user.updated" && e.data.id === created.body.id;
    await expect.poll(() => env.received.filter(isUpdate).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(env.received.filter(isUpdate).map((e) => e.data.locked)).toEqual([true]);
  });
});
