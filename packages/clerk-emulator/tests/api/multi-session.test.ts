import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { errorCode, frontendClient, patchInstance, uniqueEmail } from "../../testing";
import { emulatorForTests } from "../support/emulator-for-tests";

// `auth_config.single_session_mode: false` (Clerk's multi-session applications): a browser signs in
// to several accounts at once, switches between them (`setActive`, which touches the session), and
// signs out of one or of all. Switched on as a test does it, through the control API.
const emu = emulatorForTests();

beforeAll(async () => {
  const patched = await patchInstance(emu.origin, { auth_config: { single_session_mode: false } });
  expect(patched.body).toMatchObject({ auth_config: { single_session_mode: false } });
});

type Browser = ReturnType<typeof frontendClient>;
const ids = (client: { sessions: { id: string }[] }) => client.sessions.map((s) => s.id);

async function signIn(browser: Browser, identifier: string, password = DEMO_PASSWORD) {
  const r = await browser("POST", "/v1/client/sign_ins", { identifier, password });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.response.status).toBe("complete");
  return { sessionId: r.body.response.created_session_id as string, client: r.body.client };
}

/** The browser's client as the Backend API sees its sessions: each one's status. */
async function statuses(clientId: string) {
  const list = await emu.bapi("GET", `/v1/sessions?client_id=${clientId}`);
  return Object.fromEntries((list.body as { id: string; status: string }[]).map((s) => [s.id, s.status]));
}

describe("a multi-session instance", () => {
  it("says so in its environment", async () => {
    const environment = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(environment.body.auth_config.single_session_mode).toBe(false);
  });

  it("adds a session for each account signed in, the newest the last active one", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const grace = await signIn(browser, "grace@example.com");
    expect(grace.sessionId).not.toBe(ada.sessionId);
    expect(ids(grace.client)).toEqual([ada.sessionId, grace.sessionId]);
    expect(grace.client.last_active_session_id).toBe(grace.sessionId);
    const users = grace.client.sessions.map((s: { user: { email_addresses: { email_address: string }[] } }) =>
      s.user.email_addresses.map((e) => e.email_address),
    );
    expect(users).toEqual([["ada@example.com"], ["grace@example.com"]]);
    // Each session answers for its own account (clerk-js names it with _clerk_session_id).
    const me = await browser("GET", `/v1/me?_clerk_session_id=${ada.sessionId}`);
    expect(me.body.response.primary_email_address_id).toBe(grace.client.sessions[0].user.primary_email_address_id);
    expect(await statuses(grace.client.id)).toEqual({ [ada.sessionId]: "active", [grace.sessionId]: "active" });
  });

  it("refuses to sign in again as an account already signed in, naming its session (identifier_already_signed_in)", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const again = await browser("POST", "/v1/client/sign_ins", { identifier: "ada@example.com" });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({
      code: "identifier_already_signed_in",
      meta: { session_id: ada.sessionId },
    });
    // The answer carries the client, as Clerk's error answers do: a tab opened before the sign-in
    // learns of the session from it (Clerk's sign-in-flow spec, "existing session in another tab").
    expect(ids(again.body.meta.client)).toEqual([ada.sessionId]);
    const client = await browser("GET", "/v1/client");
    expect(ids(client.body.response)).toEqual([ada.sessionId]);
  });

  it("lets an impersonation (an actor token's ticket) of the signed-in account in beside its own session", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const token = await emu.bapi("POST", "/v1/actor_tokens", {
      user_id: "user_seed_ada",
      actor: { sub: "user_seed_grace" },
      expires_in_seconds: 120,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const r = await browser("POST", "/v1/client/sign_ins", { strategy: "ticket", ticket: token.body.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const sessionId = r.body.response.created_session_id as string;
    expect(ids(r.body.client)).toEqual([ada.sessionId, sessionId]);
    const impersonation = r.body.client.sessions.find((s: { id: string }) => s.id === sessionId);
    expect(impersonation).toMatchObject({ actor: { sub: "user_seed_grace" }, user: { id: "user_seed_ada" } });
    expect(r.body.client.last_active_session_id).toBe(sessionId);
  });

  it("switches the last active session with touch (clerk-js's setActive)", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    await signIn(browser, "grace@example.com");
    const touched = await browser("POST", `/v1/client/sessions/${ada.sessionId}/touch`, {});
    expect(touched.status).toBe(200);
    expect(touched.body.client.last_active_session_id).toBe(ada.sessionId);
    expect((await browser("GET", "/v1/client")).body.response.last_active_session_id).toBe(ada.sessionId);
  });

  it("signs out of one session (end or remove) and leaves the others signed in", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const grace = await signIn(browser, "grace@example.com");
    const newcomer = uniqueEmail("third");
    await emu.bapi("POST", "/v1/users", { email_address: [newcomer], password: "a-good-password-1" });
    const third = await signIn(browser, newcomer, "a-good-password-1");

    // clerk-js 5's signOut({ sessionId }) removes the session; Core 3's ends it.
    const removed = await browser("POST", `/v1/client/sessions/${grace.sessionId}/remove`, {});
    expect(removed.body.response).toMatchObject({ id: grace.sessionId, status: "removed" });
    expect(ids(removed.body.client)).toEqual([ada.sessionId, third.sessionId]);
    // The last active session was another: it still is.
    expect(removed.body.client.last_active_session_id).toBe(third.sessionId);

    const ended = await browser("POST", `/v1/client/sessions/${third.sessionId}/end`, {});
    expect(ended.body.response).toMatchObject({ id: third.sessionId, status: "ended" });
    expect(ids(ended.body.client)).toEqual([ada.sessionId]);
    // The active one signed out: none is active until the browser picks one of those left.
    expect(ended.body.client.last_active_session_id).toBeNull();
    expect(
      (await browser("POST", `/v1/client/sessions/${ada.sessionId}/touch`, {})).body.client.last_active_session_id,
    ).toBe(ada.sessionId);

    expect(await statuses(ended.body.client.id)).toEqual({
      [ada.sessionId]: "active",
      [grace.sessionId]: "removed",
      [third.sessionId]: "ended",
    });
  });

  it("signs out of every session at once (DELETE /v1/client/sessions)", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const grace = await signIn(browser, "grace@example.com");
    const out = await browser("DELETE", "/v1/client/sessions");
    expect(out.status).toBe(200);
    expect(out.body.response.sessions).toEqual([]);
    expect(out.body.response.last_active_session_id).toBeNull();
    expect(out.headers.getSetCookie().some((c) => /^__client_uat=0;/.test(c))).toBe(true);
    expect(await statuses(out.body.response.id)).toEqual({
      [ada.sessionId]: "removed",
      [grace.sessionId]: "removed",
    });
  });

  it("signs a new account up beside one already signed in", async () => {
    const browser = frontendClient(emu.origin);
    const ada = await signIn(browser, "ada@example.com");
    const signUp = await browser("POST", "/v1/client/sign_ups", {
      email_address: uniqueEmail("added"),
      password: "a-good-password-1",
    });
    expect(signUp.status).toBe(200);
    const verified = await browser("POST", `/v1/client/sign_ups/${signUp.body.response.id}/attempt_verification`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(verified.body.response.status).toBe("complete");
    const created = verified.body.response.created_session_id as string;
    expect(ids(verified.body.client)).toEqual([ada.sessionId, created]);
    expect(verified.body.client.last_active_session_id).toBe(created);
  });
});

describe("back to single-session", () => {
  it("refuses a second sign-in again (session_exists), as Clerk's default instance does", async () => {
    const browser = frontendClient(emu.origin);
    await signIn(browser, "ada@example.com");
    const patched = await patchInstance(emu.origin, { auth_config: { single_session_mode: true } });
    expect(patched.status).toBe(200);
    expect(errorCode(await browser("POST", "/v1/client/sign_ins", { identifier: "grace@example.com" }))).toBe(
      "session_exists",
    );
    expect((await frontendClient(emu.origin)("GET", "/v1/environment")).body.auth_config.single_session_mode).toBe(
      true,
    );
  });
});
