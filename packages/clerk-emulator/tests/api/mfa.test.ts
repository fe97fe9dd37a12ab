import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  errorCode,
  frontendClient,
  newPerson,
  startInProcessEmulator,
  TEAM_PASSWORD,
  authenticatorCode,
  freshAuthenticatorCode,
  newWebhookSecret,
} from "../../testing";
import { backendSdks, type BackendClient } from "../support/clerk-sdks";
import { webhookBreaches } from "../../contract";

// Multi-factor authentication, reverification and the forgotten password, as clerk-js
// calls the Frontend API and @clerk/backend 2 and 3 call the Backend API.
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
let emulator: Awaited<ReturnType<typeof startInProcessEmulator>>;
let sink: Server;
/** The webhooks received: type and the object's id. */
const hooks: { type: string; id: string; data: Record<string, unknown>; body: { type: string } }[] = [];

beforeAll(async () => {
  sink = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const event = JSON.parse(body) as { type: string; data: { id: string } };
      hooks.push({ type: event.type, id: event.data.id, data: event.data, body: event });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => sink.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hooks`;
  emulator = await startInProcessEmulator({ secretKey: SECRET_KEY, webhooks: { url, secret: newWebhookSecret() } });
});

afterAll(async () => {
  // Every webhook sent (user.updated with the MFA fields among them) is as Clerk's webhooks spec says.
  expect(hooks.length).toBeGreaterThan(0);
  expect(hooks.flatMap((h) => webhookBreaches(h.body))).toEqual([]);
  await emulator?.close();
  sink?.close();
});

/** A new person with a password, signed in on a browser of their own. */
async function signedInPerson(name: string) {
  const person = await newPerson(emulator.bapi, name);
  const browser = frontendClient(emulator.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: person.email, password: TEAM_PASSWORD });
  expect(signIn.body.response.status).toBe("complete");
  return { ...person, browser, sessionId: signIn.body.response.created_session_id as string };
}

/** Turns TOTP on through the Frontend API as <UserProfile/> does; returns the secret and the backup codes. */
async function enableTotp(browser: ReturnType<typeof frontendClient>) {
  const created = await browser("POST", "/v1/me/totp");
  expect(created.status).toBe(200);
  const secret = created.body.response.secret as string;
  const verified = await browser("POST", "/v1/me/totp/attempt_verification", { code: freshAuthenticatorCode(secret) });
  expect(verified.status).toBe(200);
  return { secret, backupCodes: verified.body.response.backup_codes as string[] };
}

/** The claims of the session token clerk-js would get now. */
async function tokenClaims(browser: ReturnType<typeof frontendClient>, sessionId: string) {
  const token = await browser("POST", `/v1/client/sessions/${sessionId}/tokens`);
  expect(token.status).toBe(200);
  return JSON.parse(Buffer.from((token.body.jwt as string).split(".")[1]!, "base64url").toString()) as {
    fva: [number, number];
  };
}

const meFlags = async (browser: ReturnType<typeof frontendClient>) => {
  const me = (await browser("GET", "/v1/me")).body.response;
  return { totp: me.totp_enabled, backup: me.backup_code_enabled, twoFactor: me.two_factor_enabled };
};

const userUpdatedFor = (id: string) => hooks.filter((h) => h.type === "user.updated" && h.id === id);

describe("TOTP and backup codes in the Frontend API", () => {
  it("advertises TOTP, SMS codes and backup codes as second factors in the environment", async () => {
    const env = (await frontendClient(emulator.origin)("GET", "/v1/environment")).body;
    expect(env.auth_config.second_factors).toEqual(["totp", "phone_code", "backup_code"]);
    expect(env.user_settings.attributes.authenticator_app).toMatchObject({
      enabled: true,
      used_for_second_factor: true,
      second_factors: ["totp"],
    });
    expect(env.user_settings.attributes.backup_code).toMatchObject({
      enabled: true,
      used_for_second_factor: true,
      second_factors: ["backup_code"],
    });
  });

  it("sets up an authenticator: a secret to scan, a real RFC 6238 check one step either side, then backup codes", async () => {
    const { id, email, browser } = await signedInPerson("totp");
    const created = await browser("POST", "/v1/me/totp");
    const totp = created.body.response;
    expect(totp).toMatchObject({ object: "totp", verified: false });
    expect(totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(totp.uri).toBe(
      `otpauth://totp/Clerk%20emulator%3A${encodeURIComponent(email)}?issuer=Clerk%20emulator&secret=${totp.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    // Not on until a code from the app is checked.
    expect(await meFlags(browser)).toEqual({ totp: false, backup: false, twoFactor: false });
    const wrong = String((Number(authenticatorCode(totp.secret)) + 1) % 1_000_000).padStart(6, "0");
    for (const code of [wrong, authenticatorCode(totp.secret, -3), authenticatorCode(totp.secret, 3), ""]) {
      expect(errorCode(await browser("POST", "/v1/me/totp/attempt_verification", { code }))).toBe(
        "form_code_incorrect",
      );
    }
    // The step before now still counts (a slow typist); the secret is not shown again.
    const verified = await browser("POST", "/v1/me/totp/attempt_verification", {
      code: authenticatorCode(totp.secret, -1),
    });
    expect(verified.body.response).toMatchObject({ object: "totp", id: totp.id, verified: true, secret: null });
    expect(verified.body.response.backup_codes).toHaveLength(10);
    expect(new Set(verified.body.response.backup_codes).size).toBe(10);
    expect(await meFlags(browser)).toEqual({ totp: true, backup: true, twoFactor: true });
    // One TOTP per person.
    expect(errorCode(await browser("POST", "/v1/me/totp"))).toBe("totp_already_enabled");
    // New backup codes replace the old ones.
    const regenerated = await browser("POST", "/v1/me/backup_codes");
    expect(regenerated.body.response).toMatchObject({ object: "backup_code" });
    expect(regenerated.body.response.codes).toHaveLength(10);
    expect(regenerated.body.response.codes).not.toEqual(verified.body.response.backup_codes);
    await expect.poll(() => userUpdatedFor(id).some((h) => h.data.totp_enabled === true)).toBe(true);

    // Removing the authenticator leaves nothing for backup codes to back up: both go.
    const removed = await browser("DELETE", "/v1/me/totp");
    expect(removed.body.response).toEqual({ object: "totp", id: totp.id, deleted: true });
    expect(await meFlags(browser)).toEqual({ totp: false, backup: false, twoFactor: false });
    expect(errorCode(await browser("DELETE", "/v1/me/totp"))).toBe("resource_not_found");
    await expect.poll(() => userUpdatedFor(id).at(-1)?.data.two_factor_enabled).toBe(false);
  });
});

describe("signing in with a second factor", () => {
  it("asks for the second factor after the password, and makes the session only after it", async () => {
    const { email, browser, sessionId } = await signedInPerson("signin");
    const { secret, backupCodes } = await enableTotp(browser);
    // Before it, a one-factor session: no second factor verified.
    expect((await tokenClaims(browser, sessionId)).fva).toEqual([0, -1]);
    await browser("DELETE", "/v1/client");

    const fresh = frontendClient(emulator.origin);
    const signIn = await fresh("POST", "/v1/client/sign_ins", { identifier: email, password: TEAM_PASSWORD });
    expect(signIn.body.response).toMatchObject({
      status: "needs_second_factor",
      supported_second_factors: [{ strategy: "totp" }, { strategy: "backup_code" }],
      created_session_id: null,
    });
    expect(signIn.body.client.sessions).toEqual([]);
    const id = signIn.body.response.id as string;
    // TOTP needs no preparing; a wrong code or a factor the person lacks is refused.
    expect(
      errorCode(await fresh("POST", `/v1/client/sign_ins/${id}/prepare_second_factor`, { strategy: "totp" })),
    ).toBe("form_param_value_invalid");
    const attempt = (form: Record<string, string>) =>
      fresh("POST", `/v1/client/sign_ins/${id}/attempt_second_factor`, form);
    expect(errorCode(await attempt({ strategy: "totp", code: "000000" }))).toBe("form_code_incorrect");
    expect(errorCode(await attempt({ strategy: "phone_code", code: "424242" }))).toBe("strategy_for_user_invalid");
    const done = await attempt({ strategy: "totp", code: freshAuthenticatorCode(secret) });
    expect(done.body.response).toMatchObject({
      status: "complete",
      second_factor_verification: { object: "verification_totp", status: "verified", strategy: "totp" },
    });
    const session = done.body.response.created_session_id as string;
    expect(done.body.client.sessions.map((s: { id: string }) => s.id)).toEqual([session]);
    // Both factors just verified.
    expect((await tokenClaims(fresh, session)).fva).toEqual([0, 0]);
    expect(done.body.client.sessions[0].factor_verification_age).toEqual([0, 0]);
    // The sign-in is over: its second step cannot be taken again.
    expect(errorCode(await attempt({ strategy: "totp", code: freshAuthenticatorCode(secret) }))).toBe(
      "sign_in_status_invalid",
    );

    // A backup code works once.
    for (const expected of ["complete", "form_code_incorrect"]) {
      const other = frontendClient(emulator.origin);
      const started = await other("POST", "/v1/client/sign_ins", { identifier: email, password: TEAM_PASSWORD });
      const r = await other("POST", `/v1/client/sign_ins/${started.body.response.id}/attempt_second_factor`, {
        strategy: "backup_code",
        code: backupCodes[0]!,
      });
      expect(r.status === 200 ? r.body.response.status : errorCode(r)).toBe(expected);
    }
  });

  it("resets a forgotten password with the email code, then asks for the second factor", async () => {
    const { email, browser } = await signedInPerson("forgot");
    const { secret } = await enableTotp(browser);
    const fresh = frontendClient(emulator.origin);
    const started = await fresh("POST", "/v1/client/sign_ins", { identifier: email });
    const id = started.body.response.id as string;
    expect(started.body.response.supported_first_factors).toContainEqual(
      expect.objectContaining({ strategy: "reset_password_email_code", safe_identifier: email }),
    );
    const prepared = await fresh("POST", `/v1/client/sign_ins/${id}/prepare_first_factor`, {
      strategy: "reset_password_email_code",
    });
    expect(prepared.body.response.first_factor_verification).toMatchObject({
      strategy: "reset_password_email_code",
      status: "unverified",
    });
    // The code goes out in Clerk's password-reset email.
    await expect
      .poll(() =>
        hooks.some(
          (h) =>
            h.type === "email.created" &&
            h.data.slug === "reset_password_code" &&
            h.data.to_email_address === email &&
            (h.data.data as { otp_code?: string }).otp_code === "424242",
        ),
      )
      .toBe(true);
    // Not before the code.
    expect(
      errorCode(await fresh("POST", `/v1/client/sign_ins/${id}/reset_password`, { password: "new-pass-123" })),
    ).toBe("sign_in_status_invalid");
    const attempted = await fresh("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      strategy: "reset_password_email_code",
      code: "424242",
    });
    expect(attempted.body.response.status).toBe("needs_new_password");
    expect(errorCode(await fresh("POST", `/v1/client/sign_ins/${id}/reset_password`, { password: "short" }))).toBe(
      "form_password_length_too_short",
    );
    const reset = await fresh("POST", `/v1/client/sign_ins/${id}/reset_password`, {
      password: "new-pass-123",
      sign_out_of_other_sessions: "true",
    });
    expect(reset.body.response.status).toBe("needs_second_factor");
    // The other browser was signed out; the new password signs in (up to the second factor).
    expect((await browser("GET", "/v1/me")).status).toBe(401);
    const done = await fresh("POST", `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      strategy: "totp",
      code: freshAuthenticatorCode(secret),
    });
    expect(done.body.response.status).toBe("complete");
    const again = await frontendClient(emulator.origin)("POST", "/v1/client/sign_ins", {
      identifier: email,
      password: "new-pass-123",
    });
    expect(again.body.response.status).toBe("needs_second_factor");
  });

  it("resets a forgotten password of a person without a second factor straight into a session", async () => {
    const { email } = await newPerson(emulator.bapi, "forgot2");
    const fresh = frontendClient(emulator.origin);
    const id = (await fresh("POST", "/v1/client/sign_ins", { identifier: email })).body.response.id as string;
    await fresh("POST", `/v1/client/sign_ins/${id}/prepare_first_factor`, { strategy: "reset_password_email_code" });
    await fresh("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      strategy: "reset_password_email_code",
      code: "424242",
    });
    const reset = await fresh("POST", `/v1/client/sign_ins/${id}/reset_password`, { password: "another-pass-1" });
    expect(reset.body.response.status).toBe("complete");
    expect(reset.body.client.sessions).toHaveLength(1);
  });
});

describe("reverification (session verification)", () => {
  it("verifies the first and then the second factor again, and the token's fva says so", async () => {
    const { browser, sessionId } = await signedInPerson("reverify");
    const { secret } = await enableTotp(browser);
    expect((await tokenClaims(browser, sessionId)).fva).toEqual([0, -1]);
    const got = await browser("GET", `/v1/client/sessions/${sessionId}`);
    expect(got.body.response).toMatchObject({ id: sessionId, factor_verification_age: [0, -1] });

    const path = `/v1/client/sessions/${sessionId}/verify`;
    expect(errorCode(await browser("POST", path, { level: "everything" }))).toBe("form_param_value_invalid");
    const started = await browser("POST", path, { level: "multi_factor" });
    expect(started.body.response).toMatchObject({
      object: "session_reverification",
      level: "multi_factor",
      status: "needs_first_factor",
      supported_second_factors: [{ strategy: "totp" }, { strategy: "backup_code" }],
      session: { id: sessionId },
    });
    expect(started.body.response.supported_first_factors.map((f: { strategy: string }) => f.strategy)).toEqual([
      "password",
      "email_code",
    ]);
    // Not the second factor before the first.
    expect(
      errorCode(await browser("POST", `${path}/attempt_second_factor`, { strategy: "totp", code: "000000" })),
    ).toBe("session_verification_status_invalid");
    expect(
      errorCode(await browser("POST", `${path}/attempt_first_factor`, { strategy: "password", password: "nope-nope" })),
    ).toBe("form_password_incorrect");
    const first = await browser("POST", `${path}/attempt_first_factor`, {
      strategy: "password",
      password: TEAM_PASSWORD,
    });
    expect(first.body.response).toMatchObject({
      status: "needs_second_factor",
      first_factor_verification: { status: "verified", strategy: "password" },
    });
    expect(errorCode(await browser("POST", `${path}/prepare_second_factor`, { strategy: "totp" }))).toBe(
      "form_param_value_invalid",
    );
    const second = await browser("POST", `${path}/attempt_second_factor`, {
      strategy: "totp",
      code: freshAuthenticatorCode(secret),
    });
    expect(second.body.response).toMatchObject({
      status: "complete",
      second_factor_verification: { object: "verification_totp", status: "verified" },
      session: { factor_verification_age: [0, 0] },
    });
    expect((await tokenClaims(browser, sessionId)).fva).toEqual([0, 0]);
  });

  it("asks a person without a second factor for the first only, by email code too", async () => {
    const { browser, sessionId, email } = await signedInPerson("reverify2");
    const path = `/v1/client/sessions/${sessionId}/verify`;
    const started = await browser("POST", path, { level: "second_factor" });
    expect(started.body.response).toMatchObject({ level: "first_factor", status: "needs_first_factor" });
    // The code must be sent before it is tried.
    expect(
      errorCode(await browser("POST", `${path}/attempt_first_factor`, { strategy: "email_code", code: "424242" })),
    ).toBe("verification_missing");
    const prepared = await browser("POST", `${path}/prepare_first_factor`, { strategy: "email_code" });
    expect(prepared.body.response.first_factor_verification).toMatchObject({ strategy: "email_code" });
    expect(prepared.body.response.supported_first_factors).toContainEqual(
      expect.objectContaining({ strategy: "email_code", safe_identifier: email }),
    );
    const done = await browser("POST", `${path}/attempt_first_factor`, { strategy: "email_code", code: "424242" });
    expect(done.body.response.status).toBe("complete");
    expect((await tokenClaims(browser, sessionId)).fva).toEqual([0, -1]);
  });
});

describe("removing a password", () => {
  it("takes the current password, after which the person signs in with an email code only", async () => {
    const { email, browser } = await signedInPerson("nopass");
    expect(errorCode(await browser("POST", "/v1/me/remove_password", { current_password: "wrong-one" }))).toBe(
      "form_password_incorrect",
    );
    const removed = await browser("POST", "/v1/me/remove_password", { current_password: TEAM_PASSWORD });
    expect(removed.body.response).toMatchObject({ password_enabled: false, password_last_updated_at: null });
    expect(errorCode(await browser("POST", "/v1/me/remove_password", { current_password: TEAM_PASSWORD }))).toBe(
      "no_password_set",
    );
    const r = await frontendClient(emulator.origin)("POST", "/v1/client/sign_ins", {
      identifier: email,
      password: TEAM_PASSWORD,
    });
    expect(errorCode(r)).toBe("form_password_incorrect");
  });
});

describe.each(backendSdks)("a user's second factors through the Backend API with %s", (_name, load) => {
  let clerk: BackendClient;
  beforeAll(async () => {
    clerk = (await load())({ secretKey: SECRET_KEY, apiUrl: `${emulator.origin}/__clerk/api` });
  });

  it("creates a user with a TOTP secret and backup codes, verifies codes, and removes factors", async () => {
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const user = await clerk.users.createUser({
      emailAddress: [`bapi-mfa-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`],
      password: TEAM_PASSWORD,
      totpSecret: secret,
      backupCodes: ["first-code", "second-code"],
    });
    expect(user).toMatchObject({ totpEnabled: true, backupCodeEnabled: true, twoFactorEnabled: true });
    await expect(clerk.users.verifyTOTP({ userId: user.id, code: authenticatorCode(secret) })).resolves.toEqual({
      verified: true,
      code_type: "totp",
    });
    // A backup code is used up.
    await expect(clerk.users.verifyTOTP({ userId: user.id, code: "first-code" })).resolves.toEqual({
      verified: true,
      code_type: "backup_code",
    });
    await expect(clerk.users.verifyTOTP({ userId: user.id, code: "first-code" })).rejects.toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ code: "form_code_incorrect" })],
    });

    expect(await clerk.users.deleteUserBackupCodes(user.id)).toEqual({ user_id: user.id });
    expect(await clerk.users.getUser(user.id)).toMatchObject({ totpEnabled: true, backupCodeEnabled: false });
    expect(await clerk.users.deleteUserTOTP(user.id)).toEqual({ user_id: user.id });
    expect(await clerk.users.getUser(user.id)).toMatchObject({ totpEnabled: false, twoFactorEnabled: false });
    await expect(clerk.users.verifyTOTP({ userId: user.id, code: authenticatorCode(secret) })).rejects.toMatchObject({
      status: 400,
    });

    // PATCH sets them again; disabling MFA takes everything away at once.
    const updated = await clerk.users.updateUser(user.id, { totpSecret: secret, backupCodes: ["third-code"] });
    expect(updated).toMatchObject({ totpEnabled: true, backupCodeEnabled: true, twoFactorEnabled: true });
    expect(await clerk.users.disableUserMFA(user.id)).toEqual({ user_id: user.id });
    expect(await clerk.users.getUser(user.id)).toMatchObject({
      totpEnabled: false,
      backupCodeEnabled: false,
      twoFactorEnabled: false,
    });
    await expect.poll(() => userUpdatedFor(user.id).map((h) => h.data.two_factor_enabled)).toContain(false);

    await expect(clerk.users.updateUser(user.id, { totpSecret: "not base32!" })).rejects.toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ code: "form_param_format_invalid" })],
    });
    await expect(clerk.users.disableUserMFA("user_missing")).rejects.toMatchObject({ status: 404 });
  });
});
