import { describe, expect, it } from "vitest";
import { errorCode, freshAuthenticatorCode, frontendClient, uniqueEmail, type ApiReply } from "../../testing";
import { emulatorWithWebhooksForTests } from "../support/emulator-for-tests";

// SMS codes as a second factor (Clerk's spec user-profile › "add mfa authentication with phone number"):
// a verified number reserved for them in the profile, then asked for after the password at sign-in. The
// Frontend API is called with clerk-js's form bodies, the Backend API as @clerk/backend calls it; each text
// is an `sms.created` webhook, and its code is what the tests type.
const PASSWORD = "sms-mfa-password";

const { emu, events } = emulatorWithWebhooksForTests();

let counter = 0;
/** A fresh number Clerk would text (UK's drama range, not one of Clerk's test numbers). */
const newPhone = () => `+44770091${String(++counter).padStart(4, "0")}`;

/** The texts sent to `phone` so far. */
const textsTo = (phone: string) => events.filter((e) => e.type === "sms.created" && e.data.to_phone_number === phone);

/** The code of the next text to `phone` after `before` texts, once it has arrived. */
async function nextCodeTo(phone: string, before: number): Promise<string> {
  await expect.poll(() => textsTo(phone).length, { timeout: 10_000 }).toBeGreaterThan(before);
  return textsTo(phone)[before]!.data.data.otp_code as string;
}

const fail = (r: ApiReply) => [r.status, errorCode(r), r.body.errors?.[0]?.meta?.param_name];

/** A person with a password and `phones` (verified, as the Backend API makes them), signed in on a browser. */
async function personWithPhones(count: number) {
  const email = uniqueEmail("sms");
  const numbers = Array.from({ length: count }, newPhone);
  const made = await emu.bapi("POST", "/v1/users", {
    email_address: [email],
    password: PASSWORD,
    phone_number: numbers,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const browser = frontendClient(emu.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: PASSWORD });
  expect(signIn.body.response.status).toBe("complete");
  const phones = made.body.phone_numbers as { id: string; phone_number: string }[];
  return { id: made.body.id as string, email, browser, phones };
}

const me = async (browser: ReturnType<typeof frontendClient>) => (await browser("GET", "/v1/me")).body.response;

/** A password sign-in on a new browser, up to the step it stops at. */
async function passwordSignIn(email: string) {
  const browser = frontendClient(emu.origin);
  const r = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: PASSWORD });
  expect(r.status).toBe(200);
  return { browser, signIn: r.body.response };
}

describe("turning SMS codes on in the profile", () => {
  it("reserves a verified number, makes it the default, and hands out backup codes once", async () => {
    const person = await personWithPhones(2);
    const [first, second] = person.phones;
    expect((await me(person.browser)).two_factor_enabled).toBe(false);

    const reserved = await person.browser("PATCH", `/v1/me/phone_numbers/${first!.id}`, {
      reserved_for_second_factor: "true",
    });
    expect(reserved.status).toBe(200);
    const phone = reserved.body.response;
    expect([phone.reserved_for_second_factor, phone.default_second_factor]).toEqual([true, true]);
    expect(phone.backup_codes).toHaveLength(10);
    const flags = await me(person.browser);
    expect([flags.two_factor_enabled, flags.totp_enabled, flags.backup_code_enabled]).toEqual([true, false, true]);
    expect(flags.phone_numbers.find((p: { id: string }) => p.id === first!.id).reserved_for_second_factor).toBe(true);

    // A second number: reserved, not the default, and no new codes (the person has theirs).
    const again = (
      await person.browser("PATCH", `/v1/me/phone_numbers/${second!.id}`, { reserved_for_second_factor: "true" })
    ).body.response;
    expect([again.reserved_for_second_factor, again.default_second_factor, again.backup_codes]).toEqual([
      true,
      false,
      null,
    ]);
    // Made the default, it takes the place of the first.
    await person.browser("PATCH", `/v1/me/phone_numbers/${second!.id}`, { default_second_factor: "true" });
    const numbers = (await me(person.browser)).phone_numbers as { id: string; default_second_factor: boolean }[];
    expect(numbers.map((p) => [p.id, p.default_second_factor])).toEqual([
      [first!.id, false],
      [second!.id, true],
    ]);
  });

  it("refuses an unverified number, and a default that is not reserved, with Clerk's 422s", async () => {
    const person = await personWithPhones(1);
    const added = (await person.browser("POST", "/v1/me/phone_numbers", { phone_number: newPhone() })).body.response;
    const reserve = await person.browser("PATCH", `/v1/me/phone_numbers/${added.id}`, {
      reserved_for_second_factor: "true",
    });
    expect(fail(reserve)).toEqual([422, "form_param_value_invalid", "reserved_for_second_factor"]);
    const notReserved = await person.browser("PATCH", `/v1/me/phone_numbers/${person.phones[0]!.id}`, {
      default_second_factor: "true",
    });
    expect(fail(notReserved)).toEqual([422, "form_param_value_invalid", "default_second_factor"]);
    const flags = await me(person.browser);
    expect([flags.two_factor_enabled, flags.backup_code_enabled]).toEqual([false, false]);
  });

  it("turns two-factor off when the last reserved number is released or removed, backup codes with it", async () => {
    const person = await personWithPhones(2);
    const [first, second] = person.phones;
    for (const p of [first!, second!]) {
      await person.browser("PATCH", `/v1/me/phone_numbers/${p.id}`, { reserved_for_second_factor: "true" });
    }
    // The default released, the other reserved number becomes it.
    await person.browser("PATCH", `/v1/me/phone_numbers/${first!.id}`, { reserved_for_second_factor: "false" });
    let flags = await me(person.browser);
    expect(flags.phone_numbers.map((p: { default_second_factor: boolean }) => p.default_second_factor)).toEqual([
      false,
      true,
    ]);
    expect(flags.two_factor_enabled).toBe(true);
    expect((await person.browser("DELETE", `/v1/me/phone_numbers/${second!.id}`)).status).toBe(200);
    flags = await me(person.browser);
    expect([flags.two_factor_enabled, flags.backup_code_enabled]).toEqual([false, false]);
    expect(flags.mfa_disabled_at).toEqual(expect.any(Number));
    expect((await passwordSignIn(person.email)).signIn.status).toBe("complete");
  });
});

describe("signing in with an SMS code as the second factor", () => {
  it("asks for it after the password, texts the default number, and signs in only with the right code", async () => {
    const person = await personWithPhones(2);
    const [first, second] = person.phones;
    for (const p of [first!, second!]) {
      await person.browser("PATCH", `/v1/me/phone_numbers/${p.id}`, { reserved_for_second_factor: "true" });
    }
    const { browser, signIn } = await passwordSignIn(person.email);
    expect(signIn.status).toBe("needs_second_factor");
    expect(signIn.created_session_id).toBeNull();
    expect(signIn.supported_second_factors).toEqual([
      { strategy: "phone_code", safe_identifier: first!.phone_number, phone_number_id: first!.id, default: true },
      { strategy: "phone_code", safe_identifier: second!.phone_number, phone_number_id: second!.id, default: false },
      { strategy: "backup_code" },
    ]);

    const sentBefore = textsTo(first!.phone_number).length;
    const prepared = await browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_second_factor`, {
      strategy: "phone_code",
    });
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.second_factor_verification).toMatchObject({
      object: "verification_otp",
      strategy: "phone_code",
      status: "unverified",
    });
    const code = await nextCodeTo(first!.phone_number, sentBefore);

    const attempt = (c: string) =>
      browser("POST", `/v1/client/sign_ins/${signIn.id}/attempt_second_factor`, { strategy: "phone_code", code: c });
    expect(fail(await attempt("000000"))).toEqual([422, "form_code_incorrect", "code"]);
    const done = await attempt(code);
    expect(done.body.response.status).toBe("complete");
    expect(done.body.response.second_factor_verification).toMatchObject({ strategy: "phone_code", status: "verified" });
    expect(done.body.client.sessions[0].user.id).toBe(person.id);
  });

  it("texts the number the browser names, and refuses one that is not a second factor", async () => {
    const person = await personWithPhones(2);
    const [first, second] = person.phones;
    await person.browser("PATCH", `/v1/me/phone_numbers/${second!.id}`, { reserved_for_second_factor: "true" });
    const { browser, signIn } = await passwordSignIn(person.email);
    const prepare = (phone_number_id: string) =>
      browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_second_factor`, {
        strategy: "phone_code",
        phone_number_id,
      });
    expect(fail(await prepare(first!.id))).toEqual([422, "form_param_value_invalid", "phone_number_id"]);
    const sentBefore = textsTo(second!.phone_number).length;
    expect((await prepare(second!.id)).status).toBe(200);
    const code = await nextCodeTo(second!.phone_number, sentBefore);
    const done = await browser("POST", `/v1/client/sign_ins/${signIn.id}/attempt_second_factor`, {
      strategy: "phone_code",
      code,
    });
    expect(done.body.response.status).toBe("complete");
  });

  it("refuses phone_code to a person with no number reserved (Clerk's strategy_for_user_invalid)", async () => {
    const person = await personWithPhones(1);
    // Two-factor through backup codes alone is not two-factor: set a TOTP up, then try phone_code.
    const totp = (await person.browser("POST", "/v1/me/totp")).body.response;
    await person.browser("POST", "/v1/me/totp/attempt_verification", { code: freshAuthenticatorCode(totp.secret) });
    const { browser, signIn } = await passwordSignIn(person.email);
    expect(signIn.status).toBe("needs_second_factor");
    const attempt = await browser("POST", `/v1/client/sign_ins/${signIn.id}/attempt_second_factor`, {
      strategy: "phone_code",
      code: "424242",
    });
    expect(fail(attempt)).toEqual([422, "strategy_for_user_invalid", "strategy"]);
    const prepare = await browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_second_factor`, {
      strategy: "phone_code",
    });
    expect(fail(prepare)).toEqual([422, "form_param_value_invalid", "strategy"]);
  });
});

describe("reverification with an SMS code", () => {
  it("texts the reserved number for the second factor and takes its code", async () => {
    const person = await personWithPhones(1);
    const phone = person.phones[0]!;
    await person.browser("PATCH", `/v1/me/phone_numbers/${phone.id}`, { reserved_for_second_factor: "true" });
    const sessionId = (await person.browser("GET", "/v1/client")).body.response.sessions[0].id as string;
    const path = `/v1/client/sessions/${sessionId}/verify`;
    const started = await person.browser("POST", path, { level: "multi_factor" });
    expect(started.body.response.supported_second_factors[0]).toEqual({
      strategy: "phone_code",
      safe_identifier: phone.phone_number,
      phone_number_id: phone.id,
      default: true,
    });
    await person.browser("POST", `${path}/attempt_first_factor`, { strategy: "password", password: PASSWORD });
    const sentBefore = textsTo(phone.phone_number).length;
    const prepared = await person.browser("POST", `${path}/prepare_second_factor`, { strategy: "phone_code" });
    expect(prepared.body.response.second_factor_verification).toMatchObject({ strategy: "phone_code" });
    const code = await nextCodeTo(phone.phone_number, sentBefore);
    const wrong = await person.browser("POST", `${path}/attempt_second_factor`, {
      strategy: "phone_code",
      code: "000000",
    });
    expect(fail(wrong)).toEqual([422, "form_code_incorrect", "code"]);
    const done = await person.browser("POST", `${path}/attempt_second_factor`, { strategy: "phone_code", code });
    expect(done.body.response).toMatchObject({ status: "complete", session: { factor_verification_age: [0, 0] } });
  });
});

describe("SMS second factors through the Backend API", () => {
  it("creates and updates a number reserved for them, and DELETE /v1/users/:id/mfa releases it", async () => {
    const made = await emu.bapi("POST", "/v1/users", { email_address: [uniqueEmail("bapi-sms")], password: PASSWORD });
    const userId = made.body.id as string;
    const unverified = await emu.bapi("POST", "/v1/phone_numbers", {
      user_id: userId,
      phone_number: newPhone(),
      reserved_for_second_factor: true,
    });
    expect(fail(unverified)).toEqual([422, "form_param_value_invalid", "reserved_for_second_factor"]);

    const created = await emu.bapi("POST", "/v1/phone_numbers", {
      user_id: userId,
      phone_number: newPhone(),
      verified: true,
      reserved_for_second_factor: true,
    });
    expect(created.status).toBe(200);
    expect([created.body.reserved_for_second_factor, created.body.default_second_factor]).toEqual([true, true]);
    expect((await emu.bapi("GET", `/v1/users/${userId}`)).body.two_factor_enabled).toBe(true);

    const released = await emu.bapi("PATCH", `/v1/phone_numbers/${created.body.id}`, {
      reserved_for_second_factor: false,
    });
    expect([released.body.reserved_for_second_factor, released.body.default_second_factor]).toEqual([false, false]);
    expect((await emu.bapi("GET", `/v1/users/${userId}`)).body.two_factor_enabled).toBe(false);

    await emu.bapi("PATCH", `/v1/phone_numbers/${created.body.id}`, { reserved_for_second_factor: true });
    expect((await emu.bapi("GET", `/v1/users/${userId}`)).body.two_factor_enabled).toBe(true);
    expect((await emu.bapi("DELETE", `/v1/users/${userId}/mfa`)).status).toBe(200);
    const after = (await emu.bapi("GET", `/v1/users/${userId}`)).body;
    expect([after.two_factor_enabled, after.phone_numbers[0].reserved_for_second_factor]).toEqual([false, false]);
  });

  it("takes the second factor away with the number's verification", async () => {
    const made = await emu.bapi("POST", "/v1/users", {
      email_address: [uniqueEmail("bapi-unverify")],
      password: PASSWORD,
      phone_number: [newPhone()],
    });
    const phoneId = made.body.phone_numbers[0].id as string;
    await emu.bapi("PATCH", `/v1/phone_numbers/${phoneId}`, { reserved_for_second_factor: true });
    const unverified = await emu.bapi("PATCH", `/v1/phone_numbers/${phoneId}`, { verified: false });
    expect([unverified.body.reserved_for_second_factor, unverified.body.verification.status]).toEqual([
      false,
      "unverified",
    ]);
    expect((await emu.bapi("GET", `/v1/users/${made.body.id}`)).body.two_factor_enabled).toBe(false);
  });
});
