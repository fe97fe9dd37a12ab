import { beforeEach, describe, expect, it } from "vitest";
import { errorCode, frontendClient, patchInstance, uniqueEmail } from "../../testing";
import { emulatorForTests } from "../support/emulator-for-tests";

// The dashboard's sign-up switches, as a test turns them on (the control API's PATCH /_emulator/instance,
// the keys of Clerk's environment JSON): legal consent (`user_settings.sign_up.legal_consent_enabled`)
// and the sign-up mode (`user_settings.sign_up.mode`: public, restricted, waitlist).
const emu = emulatorForTests();

async function setInstance(json: unknown) {
  const set = await patchInstance(emu.origin, json);
  expect(set.status).toBe(200);
  return set.body;
}

// Each test sets what it needs over Clerk's defaults.
beforeEach(async () => {
  await setInstance({
    user_settings: {
      sign_up: { mode: "public", legal_consent_enabled: false },
      attributes: { email_address: { verify_at_sign_up: true } },
    },
  });
});

const environment = async () => (await frontendClient(emu.origin)("GET", "/v1/environment")).body;

/** A sign-up with an address and a password, its address verified by the code: done unless something is missing. */
async function signUp(fields: Record<string, string> = {}) {
  const browser = frontendClient(emu.origin);
  const email = fields.email_address ?? uniqueEmail("signup");
  const created = await browser("POST", "/v1/client/sign_ups", {
    email_address: email,
    password: "a-good-password-1",
    ...fields,
  });
  if (created.status !== 200) return { browser, email, created, verified: null };
  const verified = await browser("POST", `/v1/client/sign_ups/${created.body.response.id}/attempt_verification`, {
    strategy: "email_code",
    code: "424242",
  });
  return { browser, email, created, verified };
}

async function invitationTicket(email: string) {
  const invitation = await emu.bapi("POST", "/v1/invitations", { email_address: email, notify: false });
  expect(invitation.status).toBe(200);
  return new URL(invitation.body.url as string).searchParams.get("ticket")!;
}

describe("legal consent", () => {
  it("is off by default: the sign-up completes without legal_accepted, the user with no legal_accepted_at", async () => {
    expect((await environment()).user_settings.sign_up.legal_consent_enabled).toBe(false);
    const { verified } = await signUp();
    expect(verified!.body.response).toMatchObject({ status: "complete", legal_accepted_at: null });
    const user = await emu.bapi("GET", `/v1/users/${verified!.body.response.created_user_id}`);
    expect(user.body.legal_accepted_at).toBeNull();
  });

  it("on, a sign-up without legal_accepted is missing it, and no user is made", async () => {
    await setInstance({ user_settings: { sign_up: { legal_consent_enabled: true } } });
    expect((await environment()).user_settings.sign_up.legal_consent_enabled).toBe(true);
    const { browser, email, created, verified } = await signUp();
    expect(created.body.response.required_fields).toContain("legal_accepted");
    expect(created.body.response.missing_fields).toEqual(["legal_accepted"]);
    expect(verified!.body.response).toMatchObject({
      status: "missing_requirements",
      missing_fields: ["legal_accepted"],
      unverified_fields: [],
      created_user_id: null,
      legal_accepted_at: null,
    });
    const users = await emu.bapi("GET", `/v1/users?email_address=${encodeURIComponent(email)}`);
    expect(users.body).toEqual([]);

    // Accepting the terms afterwards (clerk-js's checkbox, sent with an update) completes it.
    const before = Date.now();
    const accepted = await browser("PATCH", `/v1/client/sign_ups/${created.body.response.id}`, {
      legal_accepted: "true",
    });
    expect(accepted.body.response).toMatchObject({ status: "complete", missing_fields: [] });
    const user = await emu.bapi("GET", `/v1/users/${accepted.body.response.created_user_id}`);
    expect(user.body.legal_accepted_at).toBeGreaterThanOrEqual(before);
    expect(user.body.legal_accepted_at).toBe(accepted.body.response.legal_accepted_at);
  });

  it("on, a sign-up that accepts at once is made with legal_accepted_at, an invited one too", async () => {
    await setInstance({ user_settings: { sign_up: { legal_consent_enabled: true } } });
    const { verified } = await signUp({ legal_accepted: "true" });
    expect(verified!.body.response.status).toBe("complete");
    const user = await emu.bapi("GET", `/v1/users/${verified!.body.response.created_user_id}`);
    expect(user.body.legal_accepted_at).toEqual(expect.any(Number));

    const invited = uniqueEmail("invited-legal");
    const ticket = await invitationTicket(invited);
    const browser = frontendClient(emu.origin);
    const withTicket = await browser("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket,
      password: "a-good-password-1",
    });
    expect(withTicket.body.response).toMatchObject({
      status: "missing_requirements",
      missing_fields: ["legal_accepted"],
    });
    const done = await browser("PATCH", `/v1/client/sign_ups/${withTicket.body.response.id}`, {
      legal_accepted: "true",
    });
    expect(done.body.response.status).toBe("complete");
  });
});

/** Turns the sign-up mode to `mode`, as the environment then says, and tries a sign-up: Clerk's 403 `code`. */
async function refusedSignUpIn(mode: string, code: string) {
  await setInstance({ user_settings: { sign_up: { mode } } });
  expect((await environment()).user_settings.sign_up.mode).toBe(mode);
  const { created, email } = await signUp();
  expect(created.status).toBe(403);
  expect(errorCode(created)).toBe(code);
  return email;
}

describe("the sign-up mode", () => {
  it("restricted: a sign-up without an invitation is Clerk's 403 sign_up_mode_restricted; an invited one signs up", async () => {
    const email = await refusedSignUpIn("restricted", "sign_up_mode_restricted");
    expect((await emu.bapi("GET", `/v1/users?email_address=${encodeURIComponent(email)}`)).body).toEqual([]);

    const invited = uniqueEmail("invited");
    const browser = frontendClient(emu.origin);
    const withTicket = await browser("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket: await invitationTicket(invited),
      password: "a-good-password-1",
    });
    expect(withTicket.body.response.status).toBe("complete");
    // Another address than the invited one is not invited: the ticket no longer counts.
    const other = frontendClient(emu.origin);
    const changed = await other("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket: await invitationTicket(uniqueEmail("invited-other")),
    });
    const patched = await other("PATCH", `/v1/client/sign_ups/${changed.body.response.id}`, {
      email_address: uniqueEmail("not-invited"),
      password: "a-good-password-1",
    });
    const attempt = await other("POST", `/v1/client/sign_ups/${patched.body.response.id}/attempt_verification`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(errorCode(attempt)).toBe("sign_up_mode_restricted");

    // The Backend API still makes users: the mode is about signing up.
    const made = await emu.bapi("POST", "/v1/users", {
      email_address: [uniqueEmail("made")],
      password: "a-good-password-1",
    });
    expect(made.status).toBe(200);
    // Signing in is not restricted.
    const signIn = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: invited,
      password: "a-good-password-1",
    });
    expect(signIn.body.response.status).toBe("complete");
  });

  it("waitlist: a sign-up is Clerk's 403 sign_up_restricted_waitlist; joining makes an entry the Backend API lists, whose invitation signs up", async () => {
    const email = await refusedSignUpIn("waitlist", "sign_up_restricted_waitlist");

    const joined = await frontendClient(emu.origin)("POST", "/v1/waitlist", { email_address: email });
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ object: "waitlist_entry", id: expect.any(String) });
    const listed = await emu.bapi("GET", `/v1/waitlist_entries?query=${encodeURIComponent(email)}`);
    expect(listed.body.data).toMatchObject([{ id: joined.body.id, email_address: email, status: "pending" }]);

    const invited = await emu.bapi("POST", `/v1/waitlist_entries/${joined.body.id}/invite`, {});
    expect(invited.body.status).toBe("invited");
    const invitations = await emu.bapi("GET", `/v1/invitations?query=${encodeURIComponent(email)}`);
    const ticket = new URL(invitations.body[0].url as string).searchParams.get("ticket")!;
    const signUpInvited = await frontendClient(emu.origin)("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket,
      password: "a-good-password-1",
    });
    expect(signUpInvited.body.response.status).toBe("complete");
    const completed = await emu.bapi("GET", `/v1/waitlist_entries?status=completed&query=${encodeURIComponent(email)}`);
    expect(completed.body.data.map((e: { id: string }) => e.id)).toEqual([joined.body.id]);
  });

  it("public again: anyone signs up", async () => {
    await setInstance({ user_settings: { sign_up: { mode: "waitlist" } } });
    await setInstance({ user_settings: { sign_up: { mode: "public" } } });
    expect((await signUp()).verified!.body.response.status).toBe("complete");
  });
});

describe("a sign-up's unsafe metadata (clerk-js's <SignUp unsafeMetadata>)", () => {
  it("is kept on the sign-up, replaced by a PATCH, and given to the user made", async () => {
    const browser = frontendClient(emu.origin);
    const email = uniqueEmail("metadata");
    const created = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: "a-good-password-1",
      unsafe_metadata: JSON.stringify({ position: "goalie", number: 1 }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.response.unsafe_metadata).toEqual({ position: "goalie", number: 1 });
    const id = created.body.response.id as string;
    const patched = await browser("PATCH", `/v1/client/sign_ups/${id}`, {
      unsafe_metadata: JSON.stringify({ position: "defender" }),
    });
    expect(patched.body.response.unsafe_metadata).toEqual({ position: "defender" });
    const done = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(done.body.response.status).toBe("complete");
    const users = await emu.bapi("GET", `/v1/users?email_address=${encodeURIComponent(email)}`);
    expect((users.body as { unsafe_metadata: unknown }[])[0]!.unsafe_metadata).toEqual({ position: "defender" });
  });

  it("refuses what is not a JSON object with a 422 naming unsafe_metadata", async () => {
    const browser = frontendClient(emu.origin);
    const refused = await browser("POST", "/v1/client/sign_ups", {
      email_address: uniqueEmail("badmetadata"),
      unsafe_metadata: "[1, 2",
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({
      code: "form_param_format_invalid",
      meta: { param_name: "unsafe_metadata" },
    });
  });
});

describe("verify at sign-up (user_settings.attributes.email_address.verify_at_sign_up)", () => {
  it("on by default: an address and a password wait for the code, and no user is made before it", async () => {
    expect((await environment()).user_settings.attributes.email_address.verify_at_sign_up).toBe(true);
    const browser = frontendClient(emu.origin);
    const email = uniqueEmail("verifyfirst");
    const created = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: "a-good-password-1",
    });
    expect(created.body.response).toMatchObject({
      status: "missing_requirements",
      unverified_fields: ["email_address"],
    });
    expect((await emu.bapi("GET", `/v1/users?email_address=${encodeURIComponent(email)}`)).body).toEqual([]);
  });

  it("off, the user is made and signed in at once, the address unverified; it signs in, and the emailed code verifies it", async () => {
    await setInstance({ user_settings: { attributes: { email_address: { verify_at_sign_up: false } } } });
    expect((await environment()).user_settings.attributes.email_address.verify_at_sign_up).toBe(false);
    const browser = frontendClient(emu.origin);
    const email = uniqueEmail("verifylater");
    const created = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: "a-good-password-1",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.response).toMatchObject({ status: "complete", missing_fields: [] });
    const userId = created.body.response.created_user_id as string;
    expect(created.body.response.created_session_id).toMatch(/^sess_/);
    const address = async () =>
      (
        (await emu.bapi("GET", `/v1/users/${userId}`)).body as {
          email_addresses: { verification: { status: string } }[];
        }
      ).email_addresses[0]!.verification.status;
    expect(await address()).toBe("unverified");

    // Signed out, the unverified address still names its owner: the password signs in.
    expect((await browser("DELETE", "/v1/client/sessions")).status).toBe(200);
    const byPassword = await browser("POST", "/v1/client/sign_ins", {
      identifier: email,
      password: "a-good-password-1",
    });
    expect(byPassword.body.response.status).toBe("complete");
    expect(await address()).toBe("unverified");

    // A sign-in by emailed code proves the address.
    expect((await browser("DELETE", "/v1/client/sessions")).status).toBe(200);
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: email });
    const signInId = started.body.response.id as string;
    await browser("POST", `/v1/client/sign_ins/${signInId}/prepare_first_factor`, {
      strategy: "email_code",
      email_address_id: started.body.response.supported_first_factors[1].email_address_id,
    });
    const byCode = await browser("POST", `/v1/client/sign_ins/${signInId}/attempt_first_factor`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(byCode.body.response.status).toBe("complete");
    expect(await address()).toBe("verified");
  });

  it("on again, an address nobody verified names no one at sign-in", async () => {
    await setInstance({ user_settings: { attributes: { email_address: { verify_at_sign_up: false } } } });
    const browser = frontendClient(emu.origin);
    const email = uniqueEmail("verifynever");
    await browser("POST", "/v1/client/sign_ups", { email_address: email, password: "a-good-password-1" });
    await setInstance({ user_settings: { attributes: { email_address: { verify_at_sign_up: true } } } });
    const stranger = frontendClient(emu.origin);
    const refused = await stranger("POST", "/v1/client/sign_ins", { identifier: email, password: "a-good-password-1" });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].code).toBe("form_identifier_not_found");
  });
});
