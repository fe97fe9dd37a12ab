import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandaloneEmulator, type StandaloneEmulator } from "../../testing";
import { spawnGroup } from "../../testing/process-group";
import { PACKAGE_ROOT } from "../support/paths";

// `npm run emulator -- --instance <file.json>`: the dashboard's switches, as the harness of another app
// gives them (the keys of Clerk's GET /v1/environment), and the control API's PATCH /_emulator/instance.
const folder = mkdtempSync(join(tmpdir(), "clerk-emulator-instance-"));
const file = (name: string, json: unknown) => {
  const path = join(folder, name);
  writeFileSync(path, JSON.stringify(json));
  return path;
};
const GIVEN = {
  auth_config: { single_session_mode: false },
  user_settings: { sign_up: { mode: "restricted", legal_consent_enabled: true } },
};

/** All the switches: the file's, and the defaults of those it leaves out. */
const ALL = {
  auth_config: { single_session_mode: false, client_trust: false, reverification: false },
  user_settings: {
    sign_up: { mode: "restricted", legal_consent_enabled: true, mfa: { required: false } },
    attributes: {
      email_address: {
        first_factors: ["email_code", "email_link"],
        verifications: ["email_code"],
        verify_at_sign_up: true,
      },
    },
    social: {},
  },
  organization_settings: { force_organization_selection: false },
};

let emulator: StandaloneEmulator;

beforeAll(async () => {
  emulator = await startStandaloneEmulator(["--control", "--instance", file("instance.json", GIVEN)]);
});

afterAll(async () => {
  await emulator?.stop();
});

const environment = async () => (await fetch(`${emulator.url}/v1/environment`)).json();
const control = (method: string, body?: unknown) =>
  fetch(`${emulator.url}/_emulator/instance`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("the instance file", () => {
  it("sets what the environment says, and the start says which", async () => {
    const env = await environment();
    expect(env.auth_config.single_session_mode).toBe(false);
    expect(env.user_settings.sign_up).toMatchObject({ mode: "restricted", legal_consent_enabled: true });
    expect(emulator.output()).toContain(`Instance (--instance): ${JSON.stringify(ALL)}.`);
  });

  it("is read and changed through the control API in the same keys; a reset brings the file's back", async () => {
    expect(await (await control("GET")).json()).toEqual(ALL);
    const patched = await control("PATCH", { user_settings: { sign_up: { mode: "waitlist" } } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual({
      ...ALL,
      user_settings: {
        ...ALL.user_settings,
        sign_up: { mode: "waitlist", legal_consent_enabled: true, mfa: { required: false } },
      },
    });
    expect((await environment()).user_settings.sign_up.mode).toBe("waitlist");

    // Refused whole, naming the key: nothing in it is applied.
    const wrong = await control("PATCH", {
      auth_config: { single_session_mode: true },
      user_settings: { sign_up: { mode: "invite-only" } },
    });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).errors[0]).toMatchObject({
      code: "form_param_value_invalid",
      message: 'user_settings.sign_up.mode: one of public, restricted, waitlist (got "invite-only")',
    });
    const unknown = await control("PATCH", { auth_config: { multi_session: true } });
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).errors[0].message).toMatch(/^auth_config\.multi_session: unknown key/);
    expect((await environment()).auth_config.single_session_mode).toBe(false);

    expect((await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" })).status).toBe(200);
    expect(await (await control("GET")).json()).toEqual(ALL);
  });
});

describe("a wrong instance file", () => {
  it("stops the emulator before it listens, with one line naming the key and what it accepts", async () => {
    const wrong = file("wrong.json", { user_settings: { sign_up: { mode: "closed" } } });
    const child = spawnGroup(
      process.execPath,
      [join(PACKAGE_ROOT, "bin/clerk-emulator.mjs"), "--port", "0", "--data-dir", "memory", "--instance", wrong],
      process.cwd(),
      { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "test" },
    );
    const code = await new Promise((done) => child.once("exit", done));
    expect(code).toBe(2);
    expect(child.output().split("\n")[0]).toBe(
      `--instance ${wrong}: user_settings.sign_up.mode: one of public, restricted, waitlist (got "closed")`,
    );
    expect(child.output()).not.toContain("listening on");
  });
});
