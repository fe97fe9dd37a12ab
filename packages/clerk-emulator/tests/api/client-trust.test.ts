import { beforeAll, describe, expect, it } from "vitest";
import { finishSignInByEmailCode, frontendClient, newPerson, patchInstance, TEAM_PASSWORD } from "../../testing";
import { emulatorForTests } from "../support/emulator-for-tests";

// Client trust (`auth_config.client_trust`, Clerk's Device Trust; domain/client-trust.ts): a password sign-in
// on a browser where the person has never had a session waits at `needs_client_trust` for an emailed code.
const emu = emulatorForTests();

beforeAll(async () => {
  const patched = await patchInstance(emu.origin, { auth_config: { client_trust: true } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ auth_config: { client_trust: true } });
});

type Browser = ReturnType<typeof frontendClient>;

async function passwordSignIn(browser: Browser, identifier: string) {
  const r = await browser("POST", "/v1/client/sign_ins", { identifier, password: TEAM_PASSWORD });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.response as Record<string, unknown> & { id: string; status: string };
}

describe("an instance with client trust", () => {
  it("keeps the switch out of the environment, where Clerk's has no such key", async () => {
    const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(environment.body.auth_config).not.toHaveProperty("client_trust");
  });

  it("holds a password sign-in on a new browser for an emailed code, then knows the browser", async () => {
    const person = await newPerson(emu.bapi, "newdevice");
    const browser = frontendClient(emu.origin);

    // Before the identifier, the state is pending; after it, this browser is new to the person.
    const started = await browser("POST", "/v1/client/sign_ins", {});
    expect(started.body.response.client_trust_state).toBe("pending");
    const held = await passwordSignIn(browser, person.email);
    expect(held).toMatchObject({
      status: "needs_client_trust",
      client_trust_state: "new",
      created_session_id: null,
      first_factor_verification: { status: "verified", strategy: "password" },
      // One way on, the person's own address ("Use another method" is hidden).
      supported_second_factors: [{ strategy: "email_code", safe_identifier: person.email, primary: true }],
    });

    // Another strategy, or a wrong code, is refused and leaves the sign-in where it was.
    const totp = await browser("POST", `/v1/client/sign_ins/${held.id}/prepare_second_factor`, { strategy: "totp" });
    expect(totp.status).toBe(422);
    expect(totp.body.errors[0].code).toBe("strategy_for_user_invalid");
    const prepared = await browser("POST", `/v1/client/sign_ins/${held.id}/prepare_second_factor`, {
      strategy: "email_code",
      email_address_id: (held.supported_second_factors as { email_address_id: string }[])[0]!.email_address_id,
    });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body.response.second_factor_verification).toMatchObject({
      strategy: "email_code",
      status: "unverified",
    });
    const wrong = await browser("POST", `/v1/client/sign_ins/${held.id}/attempt_second_factor`, {
      strategy: "email_code",
      code: "000000",
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].code).toBe("form_code_incorrect");
    expect((await browser("GET", "/v1/client")).body.response).toMatchObject({
      sessions: [],
      sign_in: { id: held.id, status: "needs_client_trust" },
    });

    const done = await browser("POST", `/v1/client/sign_ins/${held.id}/attempt_second_factor`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response.status).toBe("complete");
    const sessionId = done.body.response.created_session_id as string;
    expect(done.body.client.sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);

    // Signed out, the same browser is known: the password is enough.
    expect((await browser("DELETE", "/v1/client/sessions")).status).toBe(200);
    const again = await passwordSignIn(browser, person.email);
    expect(again).toMatchObject({ status: "complete", client_trust_state: "known" });
  });

  it("holds the password sign-in only: an emailed code proves the browser already", async () => {
    const person = await newPerson(emu.bapi, "codeonly");
    const browser = frontendClient(emu.origin);
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: person.email });
    const done = await finishSignInByEmailCode(browser, started);
    expect(done.body.response).toMatchObject({ status: "complete", client_trust_state: "new" });
  });

  it("lets a user the Backend API exempts (bypass_client_trust) sign in by password on any browser", async () => {
    const person = await newPerson(emu.bapi, "exempt");
    const patched = await emu.bapi("PATCH", `/v1/users/${person.id}`, { bypass_client_trust: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ bypass_client_trust: true });
    expect(await passwordSignIn(frontendClient(emu.origin), person.email)).toMatchObject({ status: "complete" });
  });

  it("asks someone with two-factor on for that factor, not for an emailed code", async () => {
    const person = await newPerson(emu.bapi, "twofactor");
    await emu.bapi("PATCH", `/v1/users/${person.id}`, { backup_codes: ["abcdefgh"], totp_secret: "JBSWY3DPEHPK3PXP" });
    const held = await passwordSignIn(frontendClient(emu.origin), person.email);
    expect(held.status).toBe("needs_second_factor");
    expect((held.supported_second_factors as { strategy: string }[]).map((f) => f.strategy)).not.toContain(
      "email_code",
    );
  });
});

describe("an instance without client trust", () => {
  beforeAll(async () => {
    expect((await patchInstance(emu.origin, { auth_config: { client_trust: false } })).status).toBe(200);
  });

  it("signs a password in on a new browser at once, and shows no trust state", async () => {
    const person = await newPerson(emu.bapi, "plain");
    expect(await passwordSignIn(frontendClient(emu.origin), person.email)).toMatchObject({
      status: "complete",
      client_trust_state: null,
    });
  });
});
