import { beforeAll, describe, expect, it } from "vitest";
import {
  finishSignInByEmailCode,
  freshAuthenticatorCode,
  frontendClient,
  newPerson,
  patchInstance,
  TEAM_PASSWORD,
  uniqueEmail,
} from "../../testing";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { loadCore3Backend } from "../support/clerk-sdks";
import { emulatorForTests } from "../support/emulator-for-tests";

// `organization_settings.force_organization_selection` (the dashboard's "Allow personal accounts" off):
// a session without an active organization is `pending` with Clerk's `choose-organization` task until
// the person picks or makes one. Switched on as a test does it, through the control API.
const emu = emulatorForTests({ issuer: EMULATOR_ISSUER });

beforeAll(async () => {
  const patched = await patchInstance(emu.origin, { organization_settings: { force_organization_selection: true } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ organization_settings: { force_organization_selection: true } });
});

type Browser = ReturnType<typeof frontendClient>;

const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString());

async function signIn(browser: Browser, identifier: string, password = TEAM_PASSWORD) {
  const r = await browser("POST", "/v1/client/sign_ins", { identifier, password });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.response.status).toBe("complete");
  const sessionId = r.body.response.created_session_id as string;
  const session = r.body.client.sessions.find((s: { id: string }) => s.id === sessionId);
  return { sessionId, session, client: r.body.client };
}

async function token(browser: Browser, sessionId: string, form: Record<string, string> = {}) {
  const r = await browser("POST", `/v1/client/sessions/${sessionId}/tokens`, form);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return claims(r.body.jwt);
}

/** The session as the Backend API lists it. */
async function backendSession(userId: string, sessionId: string) {
  const list = await emu.bapi("GET", `/v1/sessions?user_id=${userId}`);
  return (list.body as { id: string }[]).find((s) => s.id === sessionId) as Record<string, unknown>;
}

/** The signed-in state @clerk/backend 3 works out of a session token (treatPendingAsSignedOut as asked). */
async function authState(jwt: string, treatPendingAsSignedOut?: boolean) {
  const { createClerkClient } = await loadCore3Backend<{
    createClerkClient: (o: object) => { authenticateRequest: (r: Request, o: object) => Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- the SDK's request state
  }>();
  const clerk = createClerkClient({
    secretKey: "sk_live_unused",
    publishableKey: emulatorPublishableKey(),
    apiUrl: `${emu.origin}/__clerk/api`,
  });
  const state = await clerk.authenticateRequest(
    new Request("http://localhost:3000/", { headers: { Authorization: `Bearer ${jwt}` } }),
    { jwtKey: emu.emulator.key.publicKeyPem, treatPendingAsSignedOut },
  );
  const auth = state.toAuth({ treatPendingAsSignedOut });
  return { status: state.status as string, userId: auth?.userId ?? null, sessionStatus: auth?.sessionStatus ?? null };
}

describe("an instance that forces an organization", () => {
  it("says so in its environment", async () => {
    const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(environment.body.organization_settings.force_organization_selection).toBe(true);
  });

  it("signs someone without an organization in to a pending session with the choose-organization task", async () => {
    const person = await newPerson(emu.bapi, "taskless");
    const browser = frontendClient(emu.origin);
    const { sessionId, session, client } = await signIn(browser, person.email);
    expect(session).toMatchObject({ status: "pending", tasks: [{ key: "choose-organization" }] });
    expect(session.last_active_organization_id).toBeNull();
    // The pending session is the browser's current one: clerk-js shows its task.
    expect(client.last_active_session_id).toBe(sessionId);
    expect((await browser("GET", "/v1/client")).body.response.sessions[0]).toMatchObject({
      status: "pending",
      tasks: [{ key: "choose-organization" }],
    });

    // The person's devices list (<UserProfile/>'s) shows it pending too.
    const devices = await browser("GET", "/v1/me/sessions/active");
    expect(devices.body).toMatchObject([{ id: sessionId, status: "pending" }]);

    // Its tokens say pending (`sts`), with no organization: @clerk/backend treats it as signed out by default.
    const pending = await browser("POST", `/v1/client/sessions/${sessionId}/tokens`, {});
    expect(claims(pending.body.jwt)).toMatchObject({ sts: "pending", sub: person.id, sid: sessionId });
    expect(claims(pending.body.jwt).o).toBeUndefined();
    expect(await authState(pending.body.jwt)).toMatchObject({ userId: null });
    expect(await authState(pending.body.jwt, false)).toEqual({
      status: "signed-in",
      userId: person.id,
      sessionStatus: "pending",
    });

    // The Backend API shows it pending too, and its status filter tells it from an active one.
    expect(await backendSession(person.id, sessionId)).toMatchObject({
      status: "pending",
      tasks: [{ key: "choose-organization" }],
    });
    const byStatus = async (status: string) =>
      ((await emu.bapi("GET", `/v1/sessions?user_id=${person.id}&status=${status}`)).body as { id: string }[]).map(
        (s) => s.id,
      );
    expect(await byStatus("pending")).toEqual([sessionId]);
    expect(await byStatus("active")).toEqual([]);
  });

  it("is pending until the person makes an organization and chooses it (touch), then active in it", async () => {
    const person = await newPerson(emu.bapi, "chooser");
    const browser = frontendClient(emu.origin);
    const { sessionId } = await signIn(browser, person.email);

    // clerk-js touches with the personal account (none) on focus: that is no choice where one is forced.
    const focus = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, {
      active_organization_id: "",
      intent: "focus",
    });
    expect(focus.status).toBe(200);
    expect(focus.body.response).toMatchObject({ status: "pending", tasks: [{ key: "choose-organization" }] });

    // <TaskChooseOrganization/>: create, then setActive({ organization }).
    const created = await browser("POST", "/v1/organizations", { name: "Chosen Ltd" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const orgId = created.body.response.id as string;
    const chosen = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, {
      active_organization_id: orgId,
      intent: "select_org",
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.response).toMatchObject({ status: "active", tasks: null, last_active_organization_id: orgId });
    expect(claims(chosen.body.response.last_active_token.jwt)).toMatchObject({ sts: "active", o: { id: orgId } });
    expect(await backendSession(person.id, sessionId)).toMatchObject({ status: "active", tasks: null });

    // Asking for the personal account now keeps the organization, for a touch and for a token.
    const personal = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { active_organization_id: "" });
    expect(personal.body.response).toMatchObject({ status: "active", last_active_organization_id: orgId });
    expect(await token(browser, sessionId, { organization_id: "" })).toMatchObject({ sts: "active", o: { id: orgId } });

    // Left without an organization (deleted), the session has the task again.
    expect((await emu.bapi("DELETE", `/v1/organizations/${orgId}`)).status).toBe(200);
    const after = await browser("GET", "/v1/client");
    expect(after.body.response.sessions[0]).toMatchObject({
      status: "pending",
      tasks: [{ key: "choose-organization" }],
    });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "pending" });
  });

  it("a sign-up ends in a pending session too (<SignUp/> continues to the task)", async () => {
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ups", {
      email_address: uniqueEmail("task-signup"),
      password: "a-good-password-1",
    });
    expect(created.status).toBe(200);
    const verified = await browser("POST", `/v1/client/sign_ups/${created.body.response.id}/attempt_verification`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(verified.body.response.status).toBe("complete");
    const sessionId = verified.body.response.created_session_id as string;
    expect(verified.body.client.sessions.find((s: { id: string }) => s.id === sessionId)).toMatchObject({
      status: "pending",
      tasks: [{ key: "choose-organization" }],
    });
  });

  it("signs a member in to an active session in their newest organization, with no task", async () => {
    const person = await newPerson(emu.bapi, "member");
    const older = await emu.bapi("POST", "/v1/organizations", { name: `Older ${Date.now()}`, created_by: person.id });
    await new Promise((done) => setTimeout(done, 5));
    const newer = await emu.bapi("POST", "/v1/organizations", { name: `Newer ${Date.now()}`, created_by: person.id });
    expect([older.status, newer.status]).toEqual([200, 200]);
    const browser = frontendClient(emu.origin);
    const { sessionId, session } = await signIn(browser, person.email);
    expect(session).toMatchObject({ status: "active", tasks: null, last_active_organization_id: newer.body.id });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "active", o: { id: newer.body.id } });

    // A session the Backend API makes for them (Clerk's testing helpers) begins the same way.
    const made = await emu.bapi("POST", "/v1/sessions", { user_id: person.id });
    expect(made.body).toMatchObject({ status: "active", tasks: null, last_active_organization_id: newer.body.id });
  });

  it("turned off again, the same session is active (personal accounts allowed)", async () => {
    const person = await newPerson(emu.bapi, "personal");
    const browser = frontendClient(emu.origin);
    const { sessionId } = await signIn(browser, person.email);
    await patchInstance(emu.origin, { organization_settings: { force_organization_selection: false } });
    try {
      const client = await browser("GET", "/v1/client");
      expect(client.body.response.sessions[0]).toMatchObject({ id: sessionId, status: "active", tasks: null });
      expect(await token(browser, sessionId)).toMatchObject({ sts: "active" });
    } finally {
      await patchInstance(emu.origin, { organization_settings: { force_organization_selection: true } });
    }
  });
});

// `user_settings.sign_up.mfa.required`: a session of someone without a second factor is pending with
// the `setup-mfa` task until they add one (here an authenticator app, as <TaskSetupMFA/>'s TOTP step does).
describe("an instance that requires multi-factor", () => {
  beforeAll(async () => {
    const patched = await patchInstance(emu.origin, {
      user_settings: { sign_up: { mfa: { required: true } } },
      organization_settings: { force_organization_selection: false },
    });
    expect(patched.status).toBe(200);
  });

  it("says so in its environment", async () => {
    const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(environment.body.user_settings.sign_up.mfa).toEqual({ required: true });
  });

  it("is pending with setup-mfa until the person adds a second factor, then active (setActive's touch)", async () => {
    const person = await newPerson(emu.bapi, "mfa-less");
    const browser = frontendClient(emu.origin);
    const { sessionId, session } = await signIn(browser, person.email);
    expect(session).toMatchObject({ status: "pending", tasks: [{ key: "setup-mfa" }] });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "pending" });

    const created = await browser("POST", "/v1/me/totp");
    expect(created.status).toBe(200);
    const code = freshAuthenticatorCode(created.body.response.secret as string);
    const verified = await browser("POST", "/v1/me/totp/attempt_verification", { code });
    expect(verified.status).toBe(200);

    const touched = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { intent: "select_session" });
    expect(touched.body.response).toMatchObject({ status: "active", tasks: null });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "active" });
    expect(await backendSession(person.id, sessionId)).toMatchObject({ status: "active" });
  });
});

// A password the Backend API marked compromised (`set_compromised`): the sign-in refuses it and takes
// an emailed code instead, and the session it makes is pending with `reset-password` (before the
// organization, as Clerk's own spec takes them) until a new password is set, which asks for no
// current one then (<TaskResetPassword/> sends none).
describe("a password marked compromised", () => {
  beforeAll(async () => {
    const patched = await patchInstance(emu.origin, {
      user_settings: { sign_up: { mfa: { required: false } } },
      organization_settings: { force_organization_selection: true },
    });
    expect(patched.status).toBe(200);
  });

  async function signInByEmailCode(browser: Browser, email: string) {
    const started = await browser("POST", "/v1/client/sign_ins", { identifier: email });
    const id = started.body.response.id as string;
    const byPassword = await browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      strategy: "password",
      password: TEAM_PASSWORD,
    });
    expect(byPassword.status).toBe(422);
    expect(byPassword.body.errors[0].code).toBe("form_password_compromised");
    const done = await finishSignInByEmailCode(browser, started);
    expect(done.body.response.status).toBe("complete");
    const sessionId = done.body.response.created_session_id as string;
    return { sessionId, session: done.body.client.sessions.find((s: { id: string }) => s.id === sessionId) };
  }

  it("signs in to a session pending with reset-password, then choose-organization; a new password resolves the first", async () => {
    const person = await newPerson(emu.bapi, "compromised");
    const earlier = frontendClient(emu.origin);
    const { sessionId: earlierId } = await signIn(earlier, person.email);
    const marked = await emu.bapi("POST", `/v1/users/${person.id}/password/set_compromised`, {});
    expect(marked.status).toBe(200);

    const browser = frontendClient(emu.origin);
    const { sessionId, session } = await signInByEmailCode(browser, person.email);
    expect(session).toMatchObject({
      status: "pending",
      tasks: [{ key: "reset-password" }, { key: "choose-organization" }],
    });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "pending" });
    // A session begun before the mark has no such task (Clerk: "on their next sign-in").
    const before = await earlier("GET", "/v1/client");
    expect(before.body.response.sessions[0]).toMatchObject({ id: earlierId, tasks: [{ key: "choose-organization" }] });

    // A wrong form still fails on the new password's rules; no current password is asked for.
    const short = await browser("POST", "/v1/me/change_password", { new_password: "short" });
    expect(short.status).toBe(422);
    expect(short.body.errors[0].code).toBe("form_password_length_too_short");
    const changed = await browser("POST", "/v1/me/change_password", {
      new_password: "a-new-password-9",
      sign_out_of_other_sessions: "true",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const touched = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { intent: "select_session" });
    expect(touched.body.response).toMatchObject({ status: "pending", tasks: [{ key: "choose-organization" }] });
    // The other sessions signed out, as the task's checkbox (on by default) asks.
    expect((await earlier("GET", "/v1/client")).body.response.sessions).toEqual([]);

    // Resolved for good: the next change asks for the current password again.
    const again = await browser("POST", "/v1/me/change_password", { new_password: "another-password-9" });
    expect(again.status).toBe(422);
    expect(again.body.errors[0].code).toBe("form_password_incorrect");
  });

  it("a member signs in to a session whose only task is reset-password, active once it is done", async () => {
    const person = await newPerson(emu.bapi, "compromised-member");
    const org = await emu.bapi("POST", "/v1/organizations", { name: "Compromised Co", created_by: person.id });
    expect(org.status).toBe(200);
    await emu.bapi("POST", `/v1/users/${person.id}/password/set_compromised`, {});
    const browser = frontendClient(emu.origin);
    const { sessionId, session } = await signInByEmailCode(browser, person.email);
    expect(session).toMatchObject({ status: "pending", tasks: [{ key: "reset-password" }] });
    await browser("POST", "/v1/me/change_password", { new_password: "a-new-password-9" });
    const touched = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { intent: "select_session" });
    expect(touched.body.response).toMatchObject({ status: "active", tasks: null });
    expect(await token(browser, sessionId)).toMatchObject({ sts: "active" });
  });
});
