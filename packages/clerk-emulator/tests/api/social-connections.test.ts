import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import {
  errorCode,
  frontendClient,
  patchInstance,
  startInProcessEmulator,
  type InProcessEmulator,
} from "../../testing";

// Issue 68: social connections as an instance setting (`user_settings.social`, as Clerk's environment
// JSON has them). With them on, the environment lists them in Clerk's shape, and a sign-in or sign-up
// with `strategy=oauth_google` and a `redirect_url` answers as Clerk does, as far as the redirect to the
// provider: an unverified OAuth verification whose `external_verification_redirect_url` is Google's
// authorize URL. The client's `last_authentication_strategy` is how it last signed in.
let emu: InProcessEmulator;

const SOCIAL = {
  user_settings: {
    social: {
      oauth_google: { enabled: true },
      oauth_github: { enabled: true },
      // Connected from the profile only: no button, no sign-in with it.
      oauth_discord: { enabled: true, authenticatable: false },
      oauth_microsoft: { enabled: false },
    },
  },
};

beforeAll(async () => {
  emu = await startInProcessEmulator();
});

afterAll(async () => {
  await emu?.close();
});

beforeEach(async () => {
  expect((await patchInstance(emu.origin, SOCIAL)).status).toBe(200);
});

const environment = async () => (await frontendClient(emu.origin)("GET", "/v1/environment")).body;

describe("social connections", () => {
  it("are listed in the environment as Clerk lists them; an empty object switches them all off; an unknown provider is refused", async () => {
    const social = (await environment()).user_settings.social;
    expect(Object.keys(social).sort()).toEqual(["oauth_discord", "oauth_github", "oauth_google", "oauth_microsoft"]);
    expect(social.oauth_google).toEqual({
      enabled: true,
      required: false,
      authenticatable: true,
      block_email_subaddresses: false,
      strategy: "oauth_google",
      not_selectable: false,
      deprecated: false,
      name: "Google",
      logo_url: "https://img.clerk.com/static/google.png",
    });
    expect(social.oauth_discord).toMatchObject({ enabled: true, authenticatable: false, name: "Discord" });

    expect((await patchInstance(emu.origin, { user_settings: { social: {} } })).status).toBe(200);
    expect((await environment()).user_settings.social).toEqual({});
    const refused = await patchInstance(emu.origin, {
      user_settings: { social: { oauth_myspace: { enabled: true } } },
    });
    expect(refused.status).toBe(422);
  });

  it("a sign-in with oauth_google answers the provider's authorize URL, unverified, as far as the redirect", async () => {
    const browser = frontendClient(emu.origin);
    const res = await browser("POST", "/v1/client/sign_ins", {
      strategy: "oauth_google",
      redirect_url: "http://127.0.0.1:3000/sso-callback",
      action_complete_redirect_url: "http://127.0.0.1:3000/",
    });
    expect(res.status).toBe(200);
    const signIn = res.body.response;
    expect(signIn).toMatchObject({ status: "needs_identifier", identifier: null, created_session_id: null });
    expect(signIn.first_factor_verification).toMatchObject({
      object: "verification_oauth",
      status: "unverified",
      strategy: "oauth_google",
      error: null,
    });
    const authorize = new URL(signIn.first_factor_verification.external_verification_redirect_url);
    expect(authorize.origin + authorize.pathname).toBe("https://accounts.google.com/o/oauth2/auth");
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: "code",
      scope: "openid email profile",
      redirect_uri: `${emu.origin}/__clerk/v1/oauth_callback`,
      state: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    // The client's sign-in reads the same.
    const client = await browser("GET", "/v1/client");
    expect(client.body.response.sign_in.first_factor_verification.strategy).toBe("oauth_google");
    expect(client.body.response.last_authentication_strategy).toBeNull();
  });

  it("a sign-up with oauth_github answers the provider's authorize URL in verifications.external_account", async () => {
    const res = await frontendClient(emu.origin)("POST", "/v1/client/sign_ups", {
      strategy: "oauth_github",
      redirect_url: "http://127.0.0.1:3000/sso-callback",
    });
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({ status: "missing_requirements", created_user_id: null });
    const external = res.body.response.verifications.external_account;
    expect(external).toMatchObject({ object: "verification_oauth", status: "unverified", strategy: "oauth_github" });
    expect(external.external_verification_redirect_url).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
  });

  it("refuses a provider the instance does not offer to sign in with, and a start without a redirect_url", async () => {
    const browser = frontendClient(emu.origin);
    for (const strategy of ["oauth_discord", "oauth_microsoft", "oauth_apple"]) {
      const signIn = await browser("POST", "/v1/client/sign_ins", { strategy, redirect_url: "http://127.0.0.1/cb" });
      expect([signIn.status, errorCode(signIn), signIn.body.errors[0].meta.param_name], strategy).toEqual([
        422,
        "form_param_value_invalid",
        "strategy",
      ]);
      const signUp = await browser("POST", "/v1/client/sign_ups", { strategy, redirect_url: "http://127.0.0.1/cb" });
      expect([signUp.status, errorCode(signUp)], strategy).toEqual([422, "form_param_value_invalid"]);
    }
    for (const path of ["/v1/client/sign_ins", "/v1/client/sign_ups"]) {
      const missing = await browser("POST", path, { strategy: "oauth_google" });
      expect([missing.status, errorCode(missing), missing.body.errors[0].meta.param_name]).toEqual([
        422,
        "form_param_missing",
        "redirect_url",
      ]);
    }
    // Switched off, Google is refused too.
    await patchInstance(emu.origin, { user_settings: { social: {} } });
    const off = await browser("POST", "/v1/client/sign_ins", { strategy: "oauth_google", redirect_url: "/cb" });
    expect(errorCode(off)).toBe("form_param_value_invalid");
  });
});

describe("the client's last_authentication_strategy", () => {
  it("is the first factor of the client's last completed sign-in: password, then an email code", async () => {
    const browser = frontendClient(emu.origin);
    const before = await browser("POST", "/v1/client");
    expect(before.body.response.last_authentication_strategy).toBeNull();

    const password = await browser("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      password: DEMO_PASSWORD,
    });
    expect(password.body.response.status).toBe("complete");
    expect(password.body.client.last_authentication_strategy).toBe("password");
    expect((await browser("GET", "/v1/client")).body.response.last_authentication_strategy).toBe("password");

    await browser("DELETE", "/v1/client/sessions");
    const started = await browser("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      strategy: "email_code",
    });
    // A sign-in under way does not change it.
    expect(started.body.client.last_authentication_strategy).toBe("password");
    const code = await browser("POST", `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(code.body.response.status).toBe("complete");
    const client = (await browser("GET", "/v1/client")).body.response;
    expect(client.last_authentication_strategy).toBe("email_code");
    // The Backend API's client says the same.
    expect((await emu.bapi("GET", `/v1/clients/${client.id}`)).body.last_authentication_strategy).toBe("email_code");
  });
});

describe("a custom OAuth provider (oauth_custom_<key>)", () => {
  const CUSTOM = {
    oauth_custom_e2e: {
      enabled: true,
      name: "E2E OAuth Provider",
      authorize_url: "http://127.0.0.1:1/oauth/authorize",
      scope: "openid email",
    },
  };

  it("is listed by its name without its URL; the control API keeps its URL and scope", async () => {
    const set = await patchInstance(emu.origin, { user_settings: { social: CUSTOM } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((set.body as { user_settings: { social: unknown } }).user_settings.social).toMatchObject(CUSTOM);
    expect((await environment()).user_settings.social.oauth_custom_e2e).toEqual({
      enabled: true,
      required: false,
      authenticatable: true,
      block_email_subaddresses: false,
      strategy: "oauth_custom_e2e",
      not_selectable: false,
      deprecated: false,
      name: "E2E OAuth Provider",
      logo_url: null,
    });
  });

  it("a sign-in with it answers its own authorize URL and scope", async () => {
    expect((await patchInstance(emu.origin, { user_settings: { social: CUSTOM } })).status).toBe(200);
    const res = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      strategy: "oauth_custom_e2e",
      redirect_url: "http://127.0.0.1:3000/sign-in#/create/sso-callback",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const to = new URL(res.body.response.first_factor_verification.external_verification_redirect_url as string);
    expect(`${to.origin}${to.pathname}`).toBe("http://127.0.0.1:1/oauth/authorize");
    expect(to.searchParams.get("scope")).toBe("openid email");
    expect(to.searchParams.get("redirect_uri")).toMatch(/\/v1\/oauth_callback$/);
  });

  it("is refused without its name or an http(s) authorize URL, naming the key", async () => {
    for (const given of [
      { enabled: true, name: "No URL" },
      { enabled: true, name: "Bad URL", authorize_url: "javascript:alert(1)" },
      { enabled: true, authorize_url: "https://idp.example/authorize" },
    ]) {
      const refused = await patchInstance(emu.origin, { user_settings: { social: { oauth_custom_x: given } } });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain("user_settings.social");
    }
    // Only a provider's own name: not one of Object's.
    for (const key of ["constructor", "toString"]) {
      expect(
        (await patchInstance(emu.origin, { user_settings: { social: { [key]: { enabled: true } } } })).status,
      ).toBe(422);
    }
    // A built-in provider takes no URL of its own.
    const builtIn = await patchInstance(emu.origin, {
      user_settings: { social: { oauth_google: { enabled: true, authorize_url: "https://idp.example/authorize" } } },
    });
    expect(builtIn.status).toBe(422);
  });
});
