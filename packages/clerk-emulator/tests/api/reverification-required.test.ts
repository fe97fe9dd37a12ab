import { beforeAll, describe, expect, it } from "vitest";
import { errorCode, frontendClient, newPerson, patchInstance, TEAM_PASSWORD } from "../../testing";
import { EMULATOR_ISSUER } from "../../src/domain/instance-keys";
import { emulatorForTests } from "../support/emulator-for-tests";

// `auth_config.reverification` (the dashboard's reverification): the person's sensitive changes of their
// own account wait for a fresh factor, with Clerk's 403 `session_reverification_required`, on which
// clerk-js's `useReverification` opens its modal, reverifies (`/v1/client/sessions/:id/verify`) and sends
// the change again. Switched on as a test does it, through the control API.
const emu = emulatorForTests({ issuer: EMULATOR_ISSUER });

type Browser = ReturnType<typeof frontendClient>;

async function signedIn(name: string) {
  const person = await newPerson(emu.bapi, name);
  const browser = frontendClient(emu.origin);
  const r = await browser("POST", "/v1/client/sign_ins", { identifier: person.email, password: TEAM_PASSWORD });
  expect(r.body.response.status).toBe("complete");
  return { person, browser, sessionId: r.body.response.created_session_id as string };
}

/** What <UserVerification/> does: a reverification started, then the password. */
async function reverify(browser: Browser, sessionId: string) {
  const path = `/v1/client/sessions/${sessionId}/verify`;
  const started = await browser("POST", path, { level: "second_factor" });
  expect(started.body.response).toMatchObject({ level: "first_factor", status: "needs_first_factor" });
  const done = await browser("POST", `${path}/attempt_first_factor`, { strategy: "password", password: TEAM_PASSWORD });
  expect(done.body.response).toMatchObject({ object: "session_reverification", status: "complete" });
}

describe("an instance with reverification on", () => {
  beforeAll(async () => {
    const patched = await patchInstance(emu.origin, { auth_config: { reverification: true } });
    expect(patched.status).toBe(200);
  });

  it("says so in its environment", async () => {
    const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(environment.body.auth_config.reverification).toBe(true);
  });

  it("lets a fresh sign-in add an address at once", async () => {
    const { browser } = await signedIn("fresh");
    const added = await browser("POST", "/v1/me/email_addresses", { email_address: "fresh-second@example.com" });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  });

  it("holds an address, a phone number and the account's deletion while a started reverification is not done", async () => {
    const { person, browser, sessionId } = await signedIn("held");
    // What Clerk's own spec does first: `session.startVerification()`, which leaves the session's fva alone.
    await browser("POST", `/v1/client/sessions/${sessionId}/verify`, { level: "first_factor" });
    const refused = await browser("POST", "/v1/me/email_addresses", { email_address: "held-second@example.com" });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      code: "session_reverification_required",
      meta: { reverification: { level: "second_factor", after_minutes: 10 } },
    });
    expect(errorCode(await browser("POST", "/v1/me/phone_numbers", { phone_number: "+15555550123" }))).toBe(
      "session_reverification_required",
    );
    expect(errorCode(await browser("DELETE", "/v1/me"))).toBe("session_reverification_required");
    // Nothing was made or deleted.
    const user = await emu.bapi("GET", `/v1/users/${person.id}`);
    expect(user.body.email_addresses).toHaveLength(1);
    expect(user.body.phone_numbers).toEqual([]);

    // Reverified, the same requests go through (the modal sends them again).
    await reverify(browser, sessionId);
    const added = await browser("POST", "/v1/me/email_addresses", { email_address: "held-second@example.com" });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const deleted = await browser("DELETE", "/v1/me");
    expect(deleted.status).toBe(200);
    expect((await emu.bapi("GET", `/v1/users/${person.id}`)).status).toBe(404);
  });

  it("takes a new password with no current one, the reverification standing for it (<UserProfile/> shows no such field)", async () => {
    const { browser } = await signedIn("newpass");
    const changed = await browser("POST", "/v1/me/change_password", { new_password: "a-new-password-9" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });
});

describe("an instance with reverification off (the default)", () => {
  beforeAll(async () => {
    await patchInstance(emu.origin, { auth_config: { reverification: false } });
  });

  it("never holds a change, a started reverification or not, and asks for the current password", async () => {
    const { browser, sessionId } = await signedIn("off");
    await browser("POST", `/v1/client/sessions/${sessionId}/verify`, { level: "first_factor" });
    const added = await browser("POST", "/v1/me/email_addresses", { email_address: "off-second@example.com" });
    expect(added.status).toBe(200);
    expect(errorCode(await browser("POST", "/v1/me/change_password", { new_password: "a-new-password-9" }))).toBe(
      "form_password_incorrect",
    );
  });
});
