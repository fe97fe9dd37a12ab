import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { errorCode, frontendClient, uniqueEmail, type ApiReply } from "../../testing";
import { backendSdks, type BackendClient } from "../support/clerk-sdks";
import { emulatorWithWebhooksForTests, type ReceivedEvent } from "../support/emulator-for-tests";

// Issue 49: phone numbers and usernames. Every phone number operation of both
// APIs, called as Clerk's SDKs call them (@clerk/backend 2 and 3 for the
// Backend API, clerk-js's form bodies for the Frontend API); each SMS Clerk
// would send is an `sms.created` webhook, received through verifyWebhook as an
// app receives it, and its code is what the tests type.
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const CODE = "424242";
const PASSWORD = "phone-test-password";

const { emu, events } = emulatorWithWebhooksForTests({ secretKey: SECRET_KEY });

let counter = 0;
/** A fresh number that Clerk would text (UK's drama range, not one of Clerk's test numbers). */
const newPhone = () => `+44770090${String(++counter).padStart(4, "0")}`;
/** One of Clerk's test numbers, +1 (XXX) 555-0100 to 0199: the test code, and no text. */
const testPhone = () => `+1212555${String(100 + (++counter % 100)).padStart(4, "0")}`;
const newUsername = () => `user_${Date.now().toString(36)}${++counter}`;

/** The `sms.created` to `phone`, once it has arrived. */
async function smsTo(phone: string): Promise<ReceivedEvent> {
  const find = () => events.find((e) => e.type === "sms.created" && e.data.to_phone_number === phone);
  await expect.poll(() => find(), { timeout: 10_000 }).toBeTruthy();
  return find()!;
}

const fail = (r: ApiReply) => [r.status, errorCode(r), r.body.errors?.[0]?.meta?.param_name];

/** A new person with a password, through the Backend API. */
async function newUser(extra: Record<string, unknown> = {}) {
  const r = await emu.bapi("POST", "/v1/users", {
    email_address: [uniqueEmail("phone")],
    password: PASSWORD,
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; email_addresses: { email_address: string }[] };
}

/** A browser signed in as `identifier` with the password. */
async function signedIn(identifier: string) {
  const browser = frontendClient(emu.origin);
  const r = await browser("POST", "/v1/client/sign_ins", { identifier, password: PASSWORD });
  expect(r.body.response?.status, JSON.stringify(r.body)).toBe("complete");
  return browser;
}

/** What an SDK's call threw: Clerk's status and first error code. */
async function refusal(call: Promise<unknown>) {
  const error = (await call.then(
    () => null,
    (e: unknown) => e,
  )) as { status?: number; errors?: { code: string }[] } | null;
  return [error?.status, error?.errors?.[0]?.code];
}

describe.each(backendSdks)("the Backend API's phone numbers through %s", (_name, load) => {
  let clerk: BackendClient;
  beforeAll(async () => {
    clerk = (await load())({ secretKey: SECRET_KEY, apiUrl: `${emu.origin}/__clerk/api` });
  });

  it("creates, reads, updates and deletes a number; the first verified one is primary", async () => {
    const user = await newUser();
    const number = newPhone();
    const made = await clerk.phoneNumbers.createPhoneNumber({ userId: user.id, phoneNumber: number, verified: true });
    expect(made).toMatchObject({ phoneNumber: number, reservedForSecondFactor: false });
    // Verified by the Backend API's say-so: Clerk's admin verification.
    expect([made.verification?.status, made.verification?.strategy]).toEqual(["verified", "admin"]);
    expect((await clerk.users.getUser(user.id)).primaryPhoneNumberId).toBe(made.id);
    expect((await clerk.phoneNumbers.getPhoneNumber(made.id)).phoneNumber).toBe(number);

    const second = await clerk.phoneNumbers.createPhoneNumber({ userId: user.id, phoneNumber: newPhone() });
    expect(second.verification?.status).toBe("unverified");
    expect(await refusal(clerk.phoneNumbers.updatePhoneNumber(second.id, { primary: true }))).toEqual([
      422,
      "form_param_value_invalid",
    ]);
    const primary = await clerk.phoneNumbers.updatePhoneNumber(second.id, { verified: true, primary: true });
    expect(primary.verification?.status).toBe("verified");
    expect((await clerk.users.getUser(user.id)).primaryPhoneNumberId).toBe(second.id);

    expect(await clerk.phoneNumbers.deletePhoneNumber(second.id)).toMatchObject({ id: second.id, deleted: true });
    // The primary number gone, the other verified one takes its place.
    const after = await clerk.users.getUser(user.id);
    expect([after.primaryPhoneNumberId, after.phoneNumbers.map((p) => p.phoneNumber)]).toEqual([made.id, [number]]);
    expect(await refusal(clerk.phoneNumbers.getPhoneNumber(second.id))).toEqual([404, "resource_not_found"]);
  });

  it("refuses a malformed number, one someone has, and an unverified SMS second factor, with Clerk's 422s", async () => {
    const user = await newUser();
    const create = (phoneNumber: string, extra = {}) =>
      clerk.phoneNumbers.createPhoneNumber({ userId: user.id, phoneNumber, ...extra });
    expect(await refusal(create("not a number"))).toEqual([422, "form_param_format_invalid"]);
    expect(await refusal(create("5550100"))).toEqual([422, "form_param_format_invalid"]);
    const taken = newPhone();
    await create(taken);
    expect(await refusal(create(taken))).toEqual([422, "form_identifier_exists"]);
    // "The phone number must also be verified" (Clerk's description of reserved_for_second_factor).
    expect(await refusal(create(newPhone(), { reservedForSecondFactor: true }))).toEqual([
      422,
      "form_param_value_invalid",
    ]);
    expect(await refusal(clerk.phoneNumbers.getPhoneNumber("idn_nobody"))).toEqual([404, "resource_not_found"]);
  });

  it("creates users with usernames and numbers, finds them by either, and changes the username", async () => {
    const username = newUsername();
    const number = newPhone();
    const user = await clerk.users.createUser({
      emailAddress: [uniqueEmail("made")],
      username: username.toUpperCase(),
      phoneNumber: [number],
    });
    // Clerk keeps usernames lowercase; numbers made here are verified, the first one primary.
    expect([user.username, user.phoneNumbers[0]?.phoneNumber, user.phoneNumbers[0]?.verification?.status]).toEqual([
      username,
      number,
      "verified",
    ]);
    expect(user.primaryPhoneNumberId).toBe(user.phoneNumbers[0]?.id);
    const ids = async (params: Parameters<BackendClient["users"]["getUserList"]>[0]) =>
      (await clerk.users.getUserList(params)).data.map((u) => u.id);
    expect(await ids({ phoneNumber: [number] })).toEqual([user.id]);
    expect(await ids({ username: [username] })).toEqual([user.id]);
    expect(await ids({ query: number.slice(4) })).toEqual([user.id]);
    expect(await ids({ phoneNumber: [newPhone()] })).toEqual([]);

    const renamed = newUsername();
    expect((await clerk.users.updateUser(user.id, { username: renamed })).username).toBe(renamed);
    expect(await refusal(clerk.users.createUser({ emailAddress: [uniqueEmail("x")], username: renamed }))).toEqual([
      422,
      "form_identifier_exists",
    ]);
    expect(await refusal(clerk.users.createUser({ emailAddress: [uniqueEmail("x")], phoneNumber: [number] }))).toEqual([
      422,
      "form_identifier_exists",
    ]);
    expect(await refusal(clerk.users.updateUser(user.id, { username: "no" }))).toEqual([
      422,
      "form_username_invalid_length",
    ]);
    expect(await refusal(clerk.users.updateUser(user.id, { username: "has space" }))).toEqual([
      422,
      "form_username_invalid_character",
    ]);
  });
});

describe("the Backend API's phone verification and replacement", () => {
  it("prepare_verification texts a code (sms.created); attempt_verification reports each attempt by its status", async () => {
    const user = await newUser();
    const number = newPhone();
    const made = await emu.bapi("POST", "/v1/phone_numbers", { user_id: user.id, phone_number: number });
    const prepared = await emu.bapi("POST", `/v1/phone_numbers/${made.body.id}/prepare_verification`);
    expect(prepared.body).toMatchObject({ object: "verification_otp", status: "unverified", strategy: "phone_code" });
    const sms = await smsTo(number);
    expect(sms.data).toMatchObject({
      object: "sms_message",
      slug: "verification_code",
      phone_number_id: made.body.id,
      user_id: user.id,
      data: { otp_code: CODE },
    });
    const attempt = (code: string, verification_id = prepared.body.id as string) =>
      emu.bapi("POST", `/v1/phone_numbers/${made.body.id}/attempt_verification`, { verification_id, code });
    const wrong = await attempt("000000");
    expect([wrong.status, wrong.body.status, wrong.body.attempts]).toEqual([200, "unverified", 1]);
    const right = await attempt(sms.data.data.otp_code as string);
    expect([right.status, right.body.status, right.body.attempts]).toEqual([200, "verified", 2]);
    expect(fail(await attempt(CODE))).toEqual([400, "verification_already_verified", undefined]);
    expect(fail(await attempt(CODE, "ver_unknown"))).toEqual([404, "resource_not_found", "verification_id"]);
    const phone = await emu.bapi("GET", `/v1/phone_numbers/${made.body.id}`);
    expect(phone.body.verification).toMatchObject({ status: "verified", strategy: "phone_code" });
  });

  it("PUT /v1/users/:id/phone_number replaces every number with one", async () => {
    const first = newPhone();
    const user = await newUser({ phone_number: [first, newPhone()] });
    const replacement = newPhone();
    const put = await emu.bapi("PUT", `/v1/users/${user.id}/phone_number`, { phone_number: replacement });
    expect([put.status, put.body.phone_number, put.body.verification.status]).toEqual([200, replacement, "verified"]);
    const after = await emu.bapi("GET", `/v1/users/${user.id}`);
    expect(after.body.phone_numbers.map((p: { phone_number: string }) => p.phone_number)).toEqual([replacement]);
    expect(after.body.primary_phone_number_id).toBe(put.body.id);
    // The old numbers are free for someone else.
    expect(
      (await emu.bapi("POST", "/v1/users", { email_address: [uniqueEmail("y")], phone_number: [first] })).status,
    ).toBe(200);
    const bad = await emu.bapi("PUT", `/v1/users/${user.id}/phone_number`, { phone_number: "12" });
    expect(fail(bad)).toEqual([422, "form_param_format_invalid", "phone_number"]);
  });
});

describe("the Frontend API's phone numbers, as <UserProfile/> calls them", () => {
  it("adds a number, verifies it with the texted code, makes another primary, and removes one", async () => {
    const user = await newUser();
    const browser = await signedIn(user.email_addresses[0]!.email_address);
    const number = newPhone();
    const added = await browser("POST", "/v1/me/phone_numbers", { phone_number: number });
    expect([added.status, added.body.response.phone_number, added.body.response.verification.status]).toEqual([
      200,
      number,
      "unverified",
    ]);
    const id = added.body.response.id as string;
    expect((await browser("GET", "/v1/me/phone_numbers")).body.map((p: { id: string }) => p.id)).toEqual([id]);
    await browser("POST", `/v1/me/phone_numbers/${id}/prepare_verification`, { strategy: "phone_code" });
    const sms = await smsTo(number);
    expect(sms.data).toMatchObject({ user_id: user.id, phone_number_id: id, message: expect.stringContaining(CODE) });
    const wrong = await browser("POST", `/v1/me/phone_numbers/${id}/attempt_verification`, { code: "111111" });
    expect(fail(wrong)).toEqual([422, "form_code_incorrect", "code"]);
    const verified = await browser("POST", `/v1/me/phone_numbers/${id}/attempt_verification`, {
      code: sms.data.data.otp_code as string,
    });
    expect(verified.body.response.verification.status).toBe("verified");
    let me = (await browser("GET", "/v1/me")).body.response;
    expect([me.primary_phone_number_id, me.phone_numbers.length]).toEqual([id, 1]);

    // A test number: verified with the test code, and never texted.
    const test = testPhone();
    const other = (await browser("POST", "/v1/me/phone_numbers", { phone_number: test })).body.response;
    await browser("POST", `/v1/me/phone_numbers/${other.id}/prepare_verification`, { strategy: "phone_code" });
    await browser("POST", `/v1/me/phone_numbers/${other.id}/attempt_verification`, { code: CODE });
    const primary = await browser("PATCH", "/v1/me", { primary_phone_number_id: other.id });
    expect(primary.body.response.primary_phone_number_id).toBe(other.id);
    const updated = () =>
      events.find(
        (e) => e.type === "user.updated" && e.data.id === user.id && e.data.primary_phone_number_id === other.id,
      );
    await expect.poll(updated, { timeout: 10_000 }).toBeTruthy();
    expect(events.some((e) => e.type === "sms.created" && e.data.to_phone_number === test)).toBe(false);

    expect((await browser("GET", `/v1/me/phone_numbers/${id}`)).body.response.id).toBe(id);
    const removed = await browser("DELETE", `/v1/me/phone_numbers/${id}`);
    expect(removed.body.response).toEqual({ object: "phone_number", id, deleted: true });
    me = (await browser("GET", "/v1/me")).body.response;
    expect(me.phone_numbers.map((p: { id: string }) => p.id)).toEqual([other.id]);
    expect(fail(await browser("GET", `/v1/me/phone_numbers/${id}`))).toEqual([404, "resource_not_found", undefined]);
  });

  it("refuses garbage, a number someone has, another strategy and an unverified SMS second factor", async () => {
    const owner = await newUser({ phone_number: [newPhone()] });
    const user = await newUser();
    const browser = await signedIn(user.email_addresses[0]!.email_address);
    const add = (phone_number: string) => browser("POST", "/v1/me/phone_numbers", { phone_number });
    expect(fail(await add("call me maybe"))).toEqual([422, "form_param_format_invalid", "phone_number"]);
    const theirs = (await emu.bapi("GET", `/v1/users/${owner.id}`)).body.phone_numbers[0].phone_number as string;
    expect(fail(await add(theirs))).toEqual([422, "form_identifier_exists", "phone_number"]);
    const mine = (await add(newPhone())).body.response;
    const strategy = await browser("POST", `/v1/me/phone_numbers/${mine.id}/prepare_verification`, {
      strategy: "email_code",
    });
    expect(fail(strategy)).toEqual([422, "form_param_value_invalid", "strategy"]);
    const reserve = await browser("PATCH", `/v1/me/phone_numbers/${mine.id}`, { reserved_for_second_factor: "true" });
    expect(fail(reserve)).toEqual([422, "form_param_value_invalid", "reserved_for_second_factor"]);
    const unverifiedPrimary = await browser("PATCH", "/v1/me", { primary_phone_number_id: mine.id });
    expect(fail(unverifiedPrimary)).toEqual([422, "form_param_value_invalid", "primary_phone_number_id"]);
  });

  it("PATCH /v1/me sets a username, with Clerk's errors for a bad or taken one", async () => {
    const other = await newUser({ username: newUsername() });
    const user = await newUser();
    const browser = await signedIn(user.email_addresses[0]!.email_address);
    const rename = (username: string) => browser("PATCH", "/v1/me", { username });
    expect(fail(await rename("a!b?c"))).toEqual([422, "form_username_invalid_character", "username"]);
    expect(fail(await rename("abc"))).toEqual([422, "form_username_invalid_length", "username"]);
    expect(fail(await rename("12345"))).toEqual([422, "form_username_needs_non_number_char", "username"]);
    const theirs = (await emu.bapi("GET", `/v1/users/${other.id}`)).body.username as string;
    expect(fail(await rename(theirs))).toEqual([422, "form_identifier_exists", "username"]);
    const name = newUsername();
    expect((await rename(name)).body.response.username).toBe(name);
  });
});

describe("usernames and phone numbers as identifiers", () => {
  it("signs in with a username or a phone number and the password", async () => {
    const username = newUsername();
    const number = newPhone();
    const user = await newUser({ username, phone_number: [number] });
    for (const identifier of [username.toUpperCase(), number]) {
      const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", { identifier, password: PASSWORD });
      expect([r.body.response.status, r.body.client.sessions[0].user.id], identifier).toEqual(["complete", user.id]);
    }
  });

  it("signs in with a phone number and an SMS code (phone_code first factor)", async () => {
    const number = newPhone();
    const user = await newUser({ phone_number: [number] });
    const browser = frontendClient(emu.origin);
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: number });
    const signIn = started.body.response;
    expect(signIn.status).toBe("needs_first_factor");
    const factor = signIn.supported_first_factors.find((f: { strategy: string }) => f.strategy === "phone_code");
    expect(factor).toMatchObject({ safe_identifier: number, primary: true });
    const prepared = await browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_first_factor`, {
      strategy: "phone_code",
      phone_number_id: factor.phone_number_id,
    });
    expect(prepared.body.response.first_factor_verification).toMatchObject({ strategy: "phone_code" });
    const sms = await smsTo(number);
    const attempt = (code: string) =>
      browser("POST", `/v1/client/sign_ins/${signIn.id}/attempt_first_factor`, { strategy: "phone_code", code });
    expect(fail(await attempt("999999"))).toEqual([422, "form_code_incorrect", "code"]);
    const done = await attempt(sms.data.data.otp_code as string);
    expect([done.body.response.status, done.body.client.sessions[0].user.id]).toEqual(["complete", user.id]);
  });

  it("phone_code for someone with no number is Clerk's 422 strategy_for_user_invalid", async () => {
    const user = await newUser();
    const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: user.email_addresses[0]!.email_address,
      strategy: "phone_code",
    });
    expect(fail(r)).toEqual([422, "strategy_for_user_invalid", "strategy"]);
  });

  it("signs up with a username and a phone number, the number verified by its texted code", async () => {
    const username = newUsername();
    const number = newPhone();
    const email = uniqueEmail("signup");
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: PASSWORD,
      username,
      phone_number: number,
    });
    const id = created.body.response.id as string;
    expect(created.body.response).toMatchObject({
      username,
      phone_number: number,
      unverified_fields: ["email_address", "phone_number"],
    });
    await browser("POST", `/v1/client/sign_ups/${id}/prepare_verification`, { strategy: "email_code" });
    const emailed = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "email_code",
      code: CODE,
    });
    // The address alone is not enough: the number given must be verified too.
    expect([emailed.body.response.status, emailed.body.response.unverified_fields]).toEqual([
      "missing_requirements",
      ["phone_number"],
    ]);
    const prepared = await browser("POST", `/v1/client/sign_ups/${id}/prepare_verification`, {
      strategy: "phone_code",
    });
    expect(prepared.body.response.verifications.phone_number).toMatchObject({ status: "unverified" });
    const sms = await smsTo(number);
    const wrong = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "phone_code",
      code: "000000",
    });
    expect(fail(wrong)).toEqual([422, "form_code_incorrect", "code"]);
    const done = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "phone_code",
      code: sms.data.data.otp_code as string,
    });
    expect(done.body.response.status).toBe("complete");
    const user = (await emu.bapi("GET", `/v1/users/${done.body.response.created_user_id}`)).body;
    expect([user.username, user.phone_numbers[0].phone_number, user.primary_phone_number_id]).toEqual([
      username,
      number,
      user.phone_numbers[0].id,
    ]);
    const createdEvent = () => events.find((e) => e.type === "user.created" && e.data.id === user.id);
    await expect.poll(createdEvent, { timeout: 10_000 }).toBeTruthy();
    expect(createdEvent()!.data).toMatchObject({ username, primary_phone_number_id: user.phone_numbers[0].id });
  });

  it("a sign-up with a taken username or number, or a malformed number, is Clerk's 422", async () => {
    const username = newUsername();
    const number = newPhone();
    await newUser({ username, phone_number: [number] });
    const signUp = (fields: Record<string, string>) =>
      frontendClient(emu.origin)("POST", "/v1/client/sign_ups", { email_address: uniqueEmail("taken"), ...fields });
    expect(fail(await signUp({ username }))).toEqual([422, "form_identifier_exists", "username"]);
    expect(fail(await signUp({ phone_number: number }))).toEqual([422, "form_identifier_exists", "phone_number"]);
    expect(fail(await signUp({ phone_number: "555" }))).toEqual([422, "form_param_format_invalid", "phone_number"]);
  });
});
