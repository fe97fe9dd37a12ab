import { describe, expect, it } from "vitest";
import { errorCode, frontendClient, patchInstance, uniqueEmail } from "../../testing";
import { emulatorForTests } from "../support/emulator-for-tests";

// Email links as dashboard switches, in the keys of Clerk's environment JSON: signing in by link
// (`user_settings.attributes.email_address.first_factors`) and verifying addresses by link
// (`…verifications`), turned on and off through the control API as a test does.
/** The app's page links land on. */
const APP = "http://app.example";
const emu = emulatorForTests({ allowedOrigins: [APP] });

const setInstance = (json: unknown) => patchInstance(emu.origin, json);
const emailAddress = (links: { signIn: boolean; verify: boolean }) => ({
  user_settings: {
    attributes: {
      email_address: {
        first_factors: links.signIn ? ["email_code", "email_link"] : ["email_code"],
        verifications: links.verify ? ["email_code", "email_link"] : ["email_code"],
      },
    },
  },
});
const environment = async () => (await frontendClient(emu.origin)("GET", "/v1/environment")).body;

async function newUser() {
  const email = uniqueEmail("linker");
  expect((await emu.bapi("POST", "/v1/users", { email_address: [email], password: "a-good-password" })).status).toBe(
    200,
  );
  return email;
}

describe("signing in by email link", () => {
  it("is on by default, as the emulator always had it", async () => {
    const env = await environment();
    expect(env.auth_config.first_factors).toContain("email_link");
    expect(env.user_settings.attributes.email_address.first_factors).toEqual(["email_code", "email_link"]);
  });

  it("off: the environment and the sign-in no longer offer it, and asking for it is Clerk's 422", async () => {
    const set = await setInstance(emailAddress({ signIn: false, verify: false }));
    expect(set.body.user_settings.attributes.email_address.first_factors).toEqual(["email_code"]);
    const env = await environment();
    expect(env.auth_config.first_factors).not.toContain("email_link");
    expect(env.auth_config.first_factors).toContain("email_code");
    expect(env.user_settings.attributes.email_address.first_factors).toEqual(["email_code"]);

    const email = await newUser();
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_link" });
    expect(created.status).toBe(422);
    expect(created.body.errors[0]).toMatchObject({
      code: "form_param_value_invalid",
      meta: { param_name: "strategy" },
    });

    const identified = await browser("POST", "/v1/client/sign_ins", { identifier: email });
    const strategies = identified.body.response.supported_first_factors.map((f: { strategy: string }) => f.strategy);
    expect(strategies).toContain("email_code");
    expect(strategies).not.toContain("email_link");
    const prepared = await browser("POST", `/v1/client/sign_ins/${identified.body.response.id}/prepare_first_factor`, {
      strategy: "email_link",
      redirect_url: `${APP}/sign-in`,
    });
    expect(errorCode(prepared)).toBe("form_param_value_invalid");
  });

  it("on again: a sign-in sends the link", async () => {
    await setInstance(emailAddress({ signIn: true, verify: false }));
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ins", {
      identifier: await newUser(),
      strategy: "email_link",
      redirect_url: `${APP}/sign-in`,
    });
    expect(created.status).toBe(200);
    expect(created.body.response.first_factor_verification).toMatchObject({
      strategy: "email_link",
      status: "unverified",
    });
  });
});

describe("verifying addresses by email link", () => {
  it("on: a sign-up's address may be verified by link; off: Clerk's 422, codes only", async () => {
    await setInstance(emailAddress({ signIn: true, verify: true }));
    expect((await environment()).user_settings.attributes.email_address.verifications).toEqual([
      "email_code",
      "email_link",
    ]);
    const browser = frontendClient(emu.origin);
    const signUp = await browser("POST", "/v1/client/sign_ups", {
      email_address: uniqueEmail("link-signup"),
      password: "a-good-password",
    });
    const byLink = await browser("POST", `/v1/client/sign_ups/${signUp.body.response.id}/prepare_verification`, {
      strategy: "email_link",
      redirect_url: `${APP}/sign-up`,
    });
    expect(byLink.status).toBe(200);
    expect(byLink.body.response.verifications.email_address).toMatchObject({
      strategy: "email_link",
      supported_strategies: ["email_code", "email_link"],
    });

    await setInstance(emailAddress({ signIn: true, verify: false }));
    expect((await environment()).user_settings.attributes.email_address.verifications).toEqual(["email_code"]);
    const refused = await browser("POST", `/v1/client/sign_ups/${signUp.body.response.id}/prepare_verification`, {
      strategy: "email_link",
      redirect_url: `${APP}/sign-up`,
    });
    expect(refused.status).toBe(422);
    expect(errorCode(refused)).toBe("form_param_value_invalid");
  });

  it("refuses a list without email codes, or with a strategy it does not know, naming the key", async () => {
    for (const list of [["email_link"], ["email_code", "saml"], "email_link", ["email_code", "email_code"]]) {
      const wrong = await setInstance({ user_settings: { attributes: { email_address: { verifications: list } } } });
      expect(wrong.status, JSON.stringify(list)).toBe(422);
      expect(wrong.body.errors[0].message).toBe(
        `user_settings.attributes.email_address.verifications: ["email_code"] or ["email_code", "email_link"] (got ${JSON.stringify(list)})`,
      );
    }
  });
});
