import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { errorCode, frontendClient, startInProcessEmulator, type InProcessEmulator } from "../../testing";

// What Clerk answers when a sign-in or a sign-up is created (issue 49): the
// emulator's instance is single-session (`single_session_mode` in its
// environment), so a browser that is signed in cannot start either.
let emu: InProcessEmulator;

beforeAll(async () => {
  emu = await startInProcessEmulator();
});

afterAll(async () => {
  await emu.close();
});

/** A browser signed in as Ada with a password. */
async function signedInBrowser() {
  const browser = frontendClient(emu.origin);
  const first = await browser("POST", "/v1/client/sign_ins", {
    identifier: "ada@example.com",
    password: DEMO_PASSWORD,
  });
  expect(first.body.response.status).toBe("complete");
  return browser;
}

const sessionExists = {
  code: "session_exists",
  message: "Session already exists",
  long_message: "You're currently in single session mode. You can only be signed into one account at a time.",
};

describe("a browser that already has an active session", () => {
  it("cannot create a sign-in: Clerk's 400 session_exists, and its session is untouched", async () => {
    const browser = await signedInBrowser();
    const before = await browser("GET", "/v1/client");
    const sessionId = before.body.response.last_active_session_id as string;

    const attempts: Record<string, string>[] = [
      { identifier: "grace@example.com", password: DEMO_PASSWORD },
      { identifier: "ada@example.com", password: DEMO_PASSWORD },
      { identifier: "ada@example.com" },
      { strategy: "ticket", ticket: "tkt_whatever" },
    ];
    for (const attempt of attempts) {
      const again = await browser("POST", "/v1/client/sign_ins", attempt);
      expect(again.status, JSON.stringify(attempt)).toBe(400);
      expect(again.body.errors[0]).toMatchObject(sessionExists);
    }
    const after = await browser("GET", "/v1/client");
    expect(after.body.response.last_active_session_id).toBe(sessionId);
    expect(after.body.response.sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);
  });

  it("cannot create a sign-up either", async () => {
    const browser = await signedInBrowser();
    const signUp = await browser("POST", "/v1/client/sign_ups", {
      email_address: "newcomer@example.com",
      password: "a-good-password",
    });
    expect(signUp.status).toBe(400);
    expect(signUp.body.errors[0]).toMatchObject(sessionExists);
  });

  it("can sign in again once signed out", async () => {
    const browser = await signedInBrowser();
    expect((await browser("DELETE", "/v1/client/sessions")).status).toBe(200);
    const again = await browser("POST", "/v1/client/sign_ins", {
      identifier: "grace@example.com",
      password: DEMO_PASSWORD,
    });
    expect(again.status).toBe(200);
    expect(again.body.response.status).toBe("complete");
  });
});

describe("creating a sign-in, Clerk's other answers", () => {
  it("an unknown account: 422 form_identifier_not_found on identifier", async () => {
    const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", { identifier: "nobody@example.com" });
    expect([r.status, errorCode(r), r.body.errors[0].meta.param_name]).toEqual([
      422,
      "form_identifier_not_found",
      "identifier",
    ]);
  });

  it("a wrong password: 422 form_password_incorrect on password", async () => {
    const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      password: "not-the-password",
    });
    expect([r.status, errorCode(r), r.body.errors[0].meta.param_name]).toEqual([
      422,
      "form_password_incorrect",
      "password",
    ]);
  });

  it("a strategy the instance does not offer: 422 form_param_value_invalid on strategy", async () => {
    for (const strategy of ["oauth_google", "passkey", "web3_metamask_signature"]) {
      const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
        identifier: "ada@example.com",
        strategy,
      });
      expect([r.status, errorCode(r), r.body.errors[0].meta.param_name], strategy).toEqual([
        422,
        "form_param_value_invalid",
        "strategy",
      ]);
    }
  });

  it("an empty identifier: 422 form_param_nil", async () => {
    const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", { identifier: "" });
    expect([r.status, errorCode(r)]).toEqual([422, "form_param_nil"]);
  });

  it("strategy email_code prepares the code factor as the sign-in is created", async () => {
    const r = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      strategy: "email_code",
    });
    expect(r.status).toBe(200);
    expect(r.body.response.status).toBe("needs_first_factor");
    expect(r.body.response.first_factor_verification).toMatchObject({ strategy: "email_code", status: "unverified" });
  });
});
