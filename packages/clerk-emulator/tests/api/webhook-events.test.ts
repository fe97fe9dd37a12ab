import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@clerk/backend/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { verificationCodeSms } from "../../src/domain/messages";
import { storeWithDefaults } from "../support/store";
import {
  frontendClient,
  startInProcessEmulator,
  uniqueEmail,
  type InProcessEmulator,
  newWebhookSecret,
} from "../../testing";
import { webhookBreaches } from "../../contract";

// Issue 49, item 3: the emulator's session.* and email.* webhooks, received
// as an app receives Clerk's (verifyWebhook from @clerk/backend/webhooks) at
// a sink on loopback, each whole body checked against Clerk's webhooks
// OpenAPI (contract/webhooks.ts).
const SECRET = newWebhookSecret();
type Received = { type: string; data: Record<string, any>; body: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
const received: Received[] = [];
let sink: Server;
let emu: InProcessEmulator;

beforeAll(async () => {
  sink = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = new Headers(req.headers as Record<string, string>);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body });
      void verifyWebhook(request, { signingSecret: SECRET }).then(
        (event) => {
          received.push({
            type: event.type,
            data: event.data as unknown as Record<string, unknown>,
            body: JSON.parse(body) as Record<string, unknown>,
          });
          res.writeHead(200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((done) => sink.listen(0, "127.0.0.1", done));
  const port = (sink.address() as AddressInfo).port;
  emu = await startInProcessEmulator({ webhooks: { url: `http://127.0.0.1:${port}/hooks`, secret: SECRET } });
});

afterAll(async () => {
  await emu?.close();
  await new Promise((done) => sink?.close(done));
});

// Every body the sink accepted keeps Clerk's spec for its event type.
afterEach(() => {
  expect(received.flatMap((e) => webhookBreaches(e.body as { type: string }))).toEqual([]);
});

/** The events of `types` received since `from`, once `count` of them have arrived. */
async function eventsSince(from: number, count: number, types = /^(session|email|sms)\./): Promise<Received[]> {
  const matching = () => received.slice(from).filter((e) => types.test(e.type));
  await expect.poll(() => matching().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return matching();
}

/** A browser signed in with a password as a seeded person. */
async function signIn(identifier = "ada@example.com") {
  const browser = frontendClient(emu.origin);
  const signed = await browser("POST", "/v1/client/sign_ins", { identifier, password: DEMO_PASSWORD });
  expect(signed.body.response.status).toBe("complete");
  return { browser, sessionId: signed.body.response.created_session_id as string };
}

describe("the emulator's session webhooks", () => {
  it("session.created on sign-in, with the session as the Backend API shows it and its user", async () => {
    const from = received.length;
    const { sessionId } = await signIn();
    const [created] = await eventsSince(from, 1);
    expect(created).toMatchObject({
      type: "session.created",
      data: { object: "session", id: sessionId, status: "active", user: { object: "user" } },
    });
    expect(created!.data.user.id).toBe(created!.data.user_id);
    const { user: _, ...session } = created!.data;
    // Less the session tasks, which Clerk's webhook spec has no place for.
    const { tasks: _tasks, ...shown } = (await emu.bapi("GET", `/v1/sessions/${sessionId}`)).body;
    expect(session).toEqual(shown);
  });

  it("signing out: DELETE /v1/client ends the sessions (session.ended), clerk-js's signOut() removes them (session.removed)", async () => {
    let from = received.length;
    const first = await signIn();
    await eventsSince(from, 1);
    from = received.length;
    expect((await first.browser("DELETE", "/v1/client")).status).toBe(200);
    const [ended] = await eventsSince(from, 1);
    expect(ended).toMatchObject({ type: "session.ended", data: { id: first.sessionId, status: "ended" } });

    // clerk-js 5's Clerk.signOut() calls Client.removeSessions(): DELETE /v1/client/sessions.
    from = received.length;
    const second = await signIn();
    expect((await second.browser("DELETE", "/v1/client/sessions")).status).toBe(200);
    const events = await eventsSince(from, 2);
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ["session.created", second.sessionId],
      ["session.removed", second.sessionId],
    ]);
  });

  it("one session: /end is session.ended, /remove is session.removed (clerk-js's signOut({ sessionId }))", async () => {
    let from = received.length;
    const a = await signIn();
    await a.browser("POST", `/v1/client/sessions/${a.sessionId}/end`);
    const b = await signIn("grace@example.com");
    await b.browser("POST", `/v1/client/sessions/${b.sessionId}/remove`);
    const events = await eventsSince(from, 4);
    expect(events.map((e) => [e.type, e.data.id, e.data.status])).toEqual([
      ["session.created", a.sessionId, "active"],
      ["session.ended", a.sessionId, "ended"],
      ["session.created", b.sessionId, "active"],
      ["session.removed", b.sessionId, "removed"],
    ]);

    // Touching a session or minting its tokens is no event.
    from = received.length;
    const c = await signIn();
    await c.browser("POST", `/v1/client/sessions/${c.sessionId}/touch`, {});
    await c.browser("POST", `/v1/client/sessions/${c.sessionId}/tokens`);
    await c.browser("POST", `/v1/client/sessions/${c.sessionId}/end`);
    expect((await eventsSince(from, 2)).map((e) => e.type)).toEqual(["session.created", "session.ended"]);
  });

  it("session.revoked on the Backend API's revoke, and only once", async () => {
    let from = received.length;
    const { sessionId } = await signIn();
    await eventsSince(from, 1);
    from = received.length;
    const revoked = await emu.bapi("POST", `/v1/sessions/${sessionId}/revoke`);
    expect(revoked.body.status).toBe("revoked");
    await emu.bapi("POST", `/v1/sessions/${sessionId}/revoke`);
    const [event] = await eventsSince(from, 1);
    expect(event).toMatchObject({ type: "session.revoked", data: { id: sessionId, status: "revoked" } });
    // A second revoke changes nothing, so sends nothing (the next event is another test's).
    const marker = await signIn();
    const after = await eventsSince(from, 2);
    expect(after.map((e) => [e.type, e.data.id])).toEqual([
      ["session.revoked", sessionId],
      ["session.created", marker.sessionId],
    ]);
  });

  it("deleting a user revokes their sessions: session.revoked shows the user as they were, before user.deleted", async () => {
    const email = uniqueEmail("leaver");
    const user = await emu.bapi("POST", "/v1/users", { email_address: [email], password: DEMO_PASSWORD });
    let from = received.length;
    const { sessionId } = await signIn(email);
    await eventsSince(from, 1);
    from = received.length;
    await emu.bapi("DELETE", `/v1/users/${user.body.id}`);
    const events = await eventsSince(from, 2, /^(session\.|user\.deleted)/);
    expect(events.map((e) => e.type)).toEqual(["session.revoked", "user.deleted"]);
    expect(events[0]!.data).toMatchObject({ id: sessionId, user: { id: user.body.id } });
  });
});

describe("the emulator's email webhooks", () => {
  it("a sign-up's code, read from email.created as another team's tests would, completes the sign-up", async () => {
    const email = uniqueEmail("newcomer");
    const browser = frontendClient(emu.origin);
    const signUp = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: "a-good-password",
    });
    const id = signUp.body.response.id as string;
    const from = received.length;
    await browser("POST", `/v1/client/sign_ups/${id}/prepare_verification`, { strategy: "email_code" });
    const [mail] = await eventsSince(from, 1);
    expect(mail).toMatchObject({
      type: "email.created",
      data: {
        object: "email",
        slug: "verification_code",
        to_email_address: email,
        from_email_name: "notifications",
        status: "queued",
        delivered_by_clerk: true,
        user_id: null,
      },
    });
    const code = mail!.data.data.otp_code as string;
    expect(mail!.data.subject).toContain(code);
    expect(mail!.data.body_plain).toContain(code);

    const done = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "email_code",
      code,
    });
    expect(done.body.response).toMatchObject({ status: "complete" });
    const userId = done.body.response.created_user_id as string;
    const after = await eventsSince(from, 2, /^(session\.|user\.created)/);
    expect(after.map((e) => [e.type, e.type === "session.created" ? e.data.user_id : e.data.id])).toEqual([
      ["user.created", userId],
      ["session.created", userId],
    ]);
  });

  it("a sign-in's email code (at creation or prepared) goes to the person's address, with their ids", async () => {
    const from = received.length;
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ins", {
      identifier: "grace@example.com",
      strategy: "email_code",
    });
    const signInId = created.body.response.id as string;
    await browser("POST", `/v1/client/sign_ins/${signInId}/prepare_first_factor`, { strategy: "email_code" });
    const mails = await eventsSince(from, 2);
    const factor = created.body.response.supported_first_factors.find(
      (f: { strategy: string }) => f.strategy === "email_code",
    );
    for (const mail of mails) {
      expect(mail).toMatchObject({
        type: "email.created",
        data: { slug: "verification_code", to_email_address: "grace@example.com" },
      });
      expect(mail.data.email_address_id).toBe(factor.email_address_id);
      expect(mail.data.user_id).toMatch(/^user_/);
    }
    const signedIn = await browser("POST", `/v1/client/sign_ins/${signInId}/attempt_first_factor`, {
      strategy: "email_code",
      code: mails[1]!.data.data.otp_code as string,
    });
    expect(signedIn.body.response.status).toBe("complete");
  });

  it("adding an address to a profile emails its code", async () => {
    const { browser } = await signIn();
    const address = uniqueEmail("second");
    const added = await browser("POST", "/v1/me/email_addresses", { email_address: address });
    const from = received.length;
    await browser("POST", `/v1/me/email_addresses/${added.body.response.id}/prepare_verification`, {
      strategy: "email_code",
    });
    const [mail] = await eventsSince(from, 1);
    expect(mail).toMatchObject({
      type: "email.created",
      data: { slug: "verification_code", to_email_address: address, email_address_id: added.body.response.id },
    });
    const verified = await browser("POST", `/v1/me/email_addresses/${added.body.response.id}/attempt_verification`, {
      code: mail!.data.data.otp_code as string,
    });
    expect(verified.body.response.verification.status).toBe("verified");
  });

  it("invitations: to an organization (organization_invitation) and to the application (invitation), unless notify is false", async () => {
    const admin = await emu.bapi("POST", "/v1/users", {
      email_address: [uniqueEmail("admin")],
      password: DEMO_PASSWORD,
      first_name: "Ida",
    });
    const org = await emu.bapi("POST", "/v1/organizations", { name: "Mailed Team", created_by: admin.body.id });
    const from = received.length;
    const invited = uniqueEmail("invited");
    const invitation = await emu.bapi("POST", `/v1/organizations/${org.body.id}/invitations`, {
      email_address: invited,
      role: "org:member",
      inviter_user_id: admin.body.id,
    });
    await emu.bapi("POST", `/v1/organizations/${org.body.id}/invitations`, {
      email_address: uniqueEmail("quiet"),
      role: "org:member",
      notify: false,
    });
    const appInvited = uniqueEmail("app");
    const appInvitation = await emu.bapi("POST", "/v1/invitations", { email_address: appInvited });
    const mails = await eventsSince(from, 2);
    expect(mails.map((m) => [m.data.slug, m.data.to_email_address])).toEqual([
      ["organization_invitation", invited],
      ["invitation", appInvited],
    ]);
    expect(mails[0]!.data.data).toMatchObject({
      action_url: invitation.body.url,
      inviter_name: "Ida",
      org: { name: "Mailed Team" },
    });
    expect(mails[1]!.data.data.action_url).toBe(appInvitation.body.url);
  });
});

describe("sms.created", () => {
  it("has Clerk's SMSMessage shape (those phone numbers send: tests/api/phone-numbers.test.ts)", () => {
    const message = verificationCodeSms(
      storeWithDefaults(),
      { phoneNumber: "+15555550123", phoneNumberId: "idn_phone", userId: "user_x" },
      "424242",
    );
    const body = {
      data: message,
      object: "event",
      type: "sms.created",
      timestamp: Date.now(),
      instance_id: "ins_emulator",
      event_attributes: { http_request: { client_ip: "", user_agent: "" } },
    };
    expect(webhookBreaches(body)).toEqual([]);
    expect(message).toMatchObject({ object: "sms_message", slug: "verification_code", data: { otp_code: "424242" } });
  });
});
