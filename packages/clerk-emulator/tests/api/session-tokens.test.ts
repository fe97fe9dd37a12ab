import { createHmac, createPublicKey, randomBytes, verify, type JsonWebKey } from "node:crypto";
import * as core2 from "@clerk/backend";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startWebhookSink,
  type WebhookSink,
  frontendClient,
  newPerson,
  startInProcessEmulator,
  type InProcessEmulator,
  newWebhookSecret,
} from "../../testing";
import { DEMO_PASSWORD } from "../../src";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "../../src/domain/instance-keys";
import { webhookBreaches } from "../../contract";
import { loadCore3Backend } from "../support/clerk-sdks";

// Issue 49: the Backend API behind @clerk/backend's sessions, jwtTemplates,
// actorTokens, clients and signUps, called through the real SDKs of both of
// Clerk's lines (@clerk/backend 2 and 3) against the emulator over HTTP; every
// answer is checked against Clerk's OpenAPI by the contract check. Tokens are
// verified as a third party would: RS256 with the instance's JWKS and HS256
// with a template's own key, both with node:crypto, and an impersonation's
// `act` as @clerk/backend's verifyToken and authenticateRequest read it.

/* eslint-disable @typescript-eslint/no-explicit-any -- each SDK's resources, read by each test */
type Sdk = typeof core2;
const sdks: [string, () => Promise<Sdk>][] = [
  ["@clerk/backend 2", async () => core2],
  ["@clerk/backend 3", () => loadCore3Backend<Sdk>()],
];

const SECRET = newWebhookSecret();
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const received: { type: string; data: any; body: { type: string } }[] = [];
let sink: WebhookSink;
let emu: InProcessEmulator;

beforeAll(async () => {
  sink = await startWebhookSink(SECRET, (e) => received.push(e));
  emu = await startInProcessEmulator({
    secretKey: SECRET_KEY,
    issuer: EMULATOR_ISSUER,
    webhooks: { url: sink.url, secret: SECRET },
  });
});

afterAll(async () => {
  await emu?.close();
  await sink?.close();
});

// Every webhook received keeps Clerk's webhooks spec (an impersonated session's session.created carries its actor).
afterEach(() => {
  expect(received.flatMap((e) => webhookBreaches(e.body))).toEqual([]);
});

const decode = (jwt: string, part: 0 | 1) =>
  JSON.parse(Buffer.from(jwt.split(".")[part]!, "base64url").toString()) as Record<string, any>;

/** The Clerk API error a call ends with: its status and first code. */
async function failure(call: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status: number; errors: { code: string }[] };
    return { status: e.status, code: e.errors[0]!.code };
  }
  throw new Error("the call succeeded");
}

/** A person in a new organization, with public metadata: what the templates' shortcodes read. */
async function personInOrg(name: string) {
  const person = await newPerson(emu.bapi, name);
  await emu.bapi("PATCH", `/v1/users/${person.id}/metadata`, { public_metadata: { plan: "pro", tier: { level: 3 } } });
  const org = await emu.bapi("POST", "/v1/organizations", {
    name: `Org of ${name} ${Date.now()}`,
    created_by: person.id,
  });
  return { ...person, orgId: org.body.id as string };
}

describe.each(sdks)("%s", (_name, load) => {
  let clerk: ReturnType<Sdk["createClerkClient"]>;
  let sdk: Sdk;
  const unique = () =>
    `${_name.replace(/\W+/g, "_")}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    sdk = await load();
    clerk = sdk.createClerkClient({
      secretKey: SECRET_KEY,
      publishableKey: emulatorPublishableKey(),
      apiUrl: `${emu.origin}/__clerk/api`,
    });
  });

  it("JWT templates: created, listed, read, changed and deleted; a name taken or a bad lifetime is Clerk's 422", async () => {
    const name = unique();
    const created = await clerk.jwtTemplates.create({ name, claims: { aud: "x", uid: "{{user.id}}" }, lifetime: 120 });
    expect(created).toMatchObject({ name, lifetime: 120, allowedClockSkew: 5, customSigningKey: false });
    expect(created.signingAlgorithm).toBe("RS256");
    expect((await clerk.jwtTemplates.get(created.id)).claims).toEqual({ aud: "x", uid: "{{user.id}}" });
    const listed = await clerk.jwtTemplates.list();
    expect(listed.data.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(listed.totalCount).toBeGreaterThanOrEqual(listed.data.length);

    const updated = await clerk.jwtTemplates.update({
      templateId: created.id,
      name: `${name}_2`,
      claims: { role: "{{org.role}}" },
      allowedClockSkew: 30,
    });
    expect(updated).toMatchObject({
      name: `${name}_2`,
      lifetime: 120,
      allowedClockSkew: 30,
      claims: { role: "{{org.role}}" },
    });

    expect(await failure(clerk.jwtTemplates.create({ name: `${name}_2`, claims: {} }))).toEqual({
      status: 422,
      code: "form_identifier_exists",
    });
    expect(await failure(clerk.jwtTemplates.create({ name: unique(), claims: {}, lifetime: 5 }))).toMatchObject({
      status: 422,
    });

    expect(await clerk.jwtTemplates.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    expect(await failure(clerk.jwtTemplates.get(created.id))).toEqual({ status: 404, code: "resource_not_found" });
  });

  it("a session made for a user (session.created sent) has a session token and template tokens, the RS256 one verified against the JWKS", async () => {
    const person = await personInOrg("templated");
    const session = await clerk.sessions.createSession({
      userId: person.id,
      active_organization_id: person.orgId,
    } as never);
    expect(session).toMatchObject({ userId: person.id, status: "active", lastActiveOrganizationId: person.orgId });
    await expect
      .poll(() => received.find((e) => e.type === "session.created" && e.data.id === session.id), { timeout: 10_000 })
      .toBeTruthy();

    const sessionToken = await clerk.sessions.getToken(session.id);
    const claims = await sdk.verifyToken(sessionToken.jwt, { jwtKey: emu.emulator.key.publicKeyPem });
    expect(claims).toMatchObject({ sid: session.id, sub: person.id, o: { id: person.orgId, rol: "admin" } });
    expect(claims.act).toBeUndefined();
    const longer = await clerk.sessions.getToken(session.id, undefined, 600);
    expect(decode(longer.jwt, 1).exp - decode(longer.jwt, 1).iat).toBe(600);
    expect(await failure(clerk.sessions.getToken(session.id, undefined, 5))).toEqual({
      status: 422,
      code: "form_param_value_invalid",
    });

    const name = unique();
    await clerk.jwtTemplates.create({
      name,
      claims: {
        aud: "third-party",
        user_id: "{{user.id}}",
        email: "{{user.primary_email_address}}",
        org: "{{org.id}}",
        role: "{{org.role}}",
        plan: "{{user.public_metadata.plan}}",
        tier: "{{user.public_metadata.tier}}",
        greeting: "Hi {{user.first_name}} ({{user.public_metadata.nothing || 'none'}})",
        nested: { level: "{{user.public_metadata.tier.level}}", list: ["{{org.slug}}", 1] },
        sub: "cannot-override",
      },
    });
    const token = await clerk.sessions.getToken(session.id, name);
    // The same through a request's auth object, as an app's server asks for it.
    const signedIn = await clerk.authenticateRequest(
      new Request("http://localhost:3000/", { headers: { Authorization: `Bearer ${sessionToken.jwt}` } }),
      { jwtKey: emu.emulator.key.publicKeyPem },
    );
    const viaAuth = await signedIn.toAuth()!.getToken({ template: name });
    expect(decode(viaAuth!, 1)).toMatchObject({ aud: "third-party", user_id: person.id, sub: person.id });
    const [header, payload, signature] = token.jwt.split(".") as [string, string, string];
    const jwks = await clerk.jwks.getJwks();
    const jwk = jwks.keys!.find((k: { kid: string }) => k.kid === decode(token.jwt, 0).kid)!;
    const publicKey = createPublicKey({ key: jwk as unknown as JsonWebKey, format: "jwk" });
    expect(
      verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, "base64url")),
    ).toBe(true);
    expect(decode(token.jwt, 0)).toMatchObject({ alg: "RS256", cat: "cl_B7d4PD222AAA" });
    const body = decode(token.jwt, 1);
    expect(body).toMatchObject({
      aud: "third-party",
      user_id: person.id,
      email: person.email,
      org: person.orgId,
      role: "org:admin",
      plan: "pro",
      tier: { level: 3 },
      greeting: "Hi Templated (none)",
      nested: { level: 3, list: [expect.stringMatching(/^org-of-templated/), 1] },
      sub: person.id,
      iss: EMULATOR_ISSUER,
    });
    expect(body.sid).toBeUndefined();
    expect(body.exp - body.iat).toBe(60);
    expect(body.iat - body.nbf).toBe(5);

    // @clerk/backend 3 refuses a template's token where a session token is expected (its `cat`, Clerk's SEC-340).
    if (_name.endsWith("3")) {
      const state = await clerk.authenticateRequest(
        new Request("http://localhost:3000/", { headers: { Authorization: `Bearer ${token.jwt}` } }),
        { jwtKey: emu.emulator.key.publicKeyPem },
      );
      expect([state.status, state.reason]).toEqual(["signed-out", "token-type-mismatch"]);
    }

    expect(await failure(clerk.sessions.getToken(session.id, "no-such-template"))).toEqual({
      status: 404,
      code: "resource_not_found",
    });
  });

  it("a template with its own key signs HS256 with it, as Supabase's JWT secret is used", async () => {
    const person = await personInOrg("supabase");
    const session = await clerk.sessions.createSession({ userId: person.id });
    const name = unique();
    const secret = "super-secret-jwt-token-with-at-least-32-characters-long";
    const template = await clerk.jwtTemplates.create({
      name,
      claims: { aud: "authenticated", role: "authenticated", email: "{{user.primary_email_address}}" },
      customSigningKey: true,
      signingAlgorithm: "HS256",
      signingKey: secret,
      lifetime: 3600,
    });
    expect(template).toMatchObject({ customSigningKey: true, signingAlgorithm: "HS256" });
    expect(JSON.stringify(await clerk.jwtTemplates.get(template.id))).not.toContain(secret);

    const { jwt } = await clerk.sessions.getToken(session.id, name);
    const [header, payload, signature] = jwt.split(".") as [string, string, string];
    const expected = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
    expect(signature).toBe(expected);
    expect(decode(jwt, 0)).toEqual({ alg: "HS256", typ: "JWT" });
    expect(decode(jwt, 1)).toMatchObject({
      aud: "authenticated",
      role: "authenticated",
      email: person.email,
      sub: person.id,
    });
    expect(decode(jwt, 1).exp - decode(jwt, 1).iat).toBe(3600);

    expect(
      await failure(
        clerk.jwtTemplates.create({
          name: unique(),
          claims: {},
          customSigningKey: true,
          signingAlgorithm: "RS256",
          signingKey: "not a pem",
        }),
      ),
    ).toMatchObject({ status: 422, code: "form_param_value_invalid" });
  });

  it("refreshes a session from its expired token (a token, or cookies); a token of another session is a 401", async () => {
    const person = await newPerson(emu.bapi, "refresher");
    const session = await clerk.sessions.createSession({ userId: person.id });
    const other = await clerk.sessions.createSession({ userId: person.id });
    const expired = (await clerk.sessions.getToken(session.id)).jwt;
    const params = { expired_token: expired, refresh_token: "r", request_origin: "http://localhost:3000" };

    const token = await clerk.sessions.refreshSession(session.id, { ...params, format: "token" });
    expect(decode(token.jwt, 1)).toMatchObject({ sid: session.id, azp: "http://localhost:3000" });
    const cookies = await clerk.sessions.refreshSession(session.id, { ...params, format: "cookie" });
    expect(cookies.cookies[0]).toMatch(/^__session=ey/);

    expect((await failure(clerk.sessions.refreshSession(other.id, params))).status).toBe(401);
    await clerk.sessions.revokeSession(session.id);
    expect((await failure(clerk.sessions.refreshSession(session.id, params))).status).toBe(401);
    expect(await failure(clerk.sessions.getToken(session.id))).toMatchObject({ status: 404 });
  });

  it("impersonation: an actor token signs in with clerk-js's ticket request, and the session's tokens carry `act`", async () => {
    const admin = await newPerson(emu.bapi, "impersonator");
    const user = await newPerson(emu.bapi, "impersonated");
    const actorToken = await clerk.actorTokens.create({
      userId: user.id,
      actor: { sub: admin.id },
      expiresInSeconds: 600,
      sessionMaxDurationInSeconds: 900,
    });
    expect(actorToken).toMatchObject({ userId: user.id, status: "pending", actor: { sub: admin.id } });
    expect(actorToken.url).toContain(`/v1/tickets/accept?ticket=${actorToken.token}`);

    // What clerk-js sends for `__clerk_ticket` (signIn.create({ strategy: "ticket", ticket })).
    const browser = frontendClient(emu.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins", { strategy: "ticket", ticket: actorToken.token! });
    expect(signIn.status).toBe(200);
    expect(signIn.body.response.status).toBe("complete");
    const sessionId = signIn.body.response.created_session_id as string;
    const fapiSession = signIn.body.client.sessions.find((s: { id: string }) => s.id === sessionId);
    expect(fapiSession.actor).toEqual({ sub: admin.id });
    expect(fapiSession.expire_at - Date.now()).toBeLessThanOrEqual(900_000);

    const read = await browser("GET", `/v1/client/sessions/${sessionId}`);
    expect(read.body.response).toMatchObject({ id: sessionId, actor: { sub: admin.id }, status: "active" });
    const backendSession = await clerk.sessions.getSession(sessionId);
    expect(backendSession.actor).toEqual({ sub: admin.id });
    await expect
      .poll(() => received.find((e) => e.type === "session.created" && e.data.id === sessionId)?.data.actor, {
        timeout: 10_000,
      })
      .toEqual({ sub: admin.id });

    const minted = await browser("POST", `/v1/client/sessions/${sessionId}/tokens`, {});
    const jwt = minted.body.jwt as string;
    expect((await sdk.verifyToken(jwt, { jwtKey: emu.emulator.key.publicKeyPem })).act).toEqual({ sub: admin.id });
    const state = await clerk.authenticateRequest(
      new Request("http://localhost:3000/", { headers: { Authorization: `Bearer ${jwt}` } }),
      { jwtKey: emu.emulator.key.publicKeyPem },
    );
    expect(state.status).toBe("signed-in");
    expect(state.toAuth()).toMatchObject({ userId: user.id, sessionId, actor: { sub: admin.id } });

    // Spent: a second use is refused; a fresh one can be revoked and is refused then.
    const again = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: actorToken.token!,
    });
    expect(again.status).toBe(400);
    const second = await clerk.actorTokens.create({ userId: user.id, actor: { sub: admin.id } });
    expect((await clerk.actorTokens.revoke(second.id)).status).toBe("revoked");
    expect(await failure(clerk.actorTokens.revoke(second.id))).toMatchObject({ status: 400 });
    const revoked = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: second.token!,
    });
    expect(revoked.status).toBe(400);
    expect(await failure(clerk.actorTokens.create({ userId: "user_nobody", actor: { sub: admin.id } }))).toMatchObject({
      status: 404,
    });
  });

  it("clients: listed, read, and verified from the browser's client token", async () => {
    const browser = frontendClient(emu.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      password: DEMO_PASSWORD,
    });
    const clientId = signIn.body.client.id as string;
    const sessionId = signIn.body.response.created_session_id as string;

    const client = await clerk.clients.getClient(clientId);
    expect(client).toMatchObject({ id: clientId, lastActiveSessionId: sessionId, signInId: signIn.body.response.id });
    expect(client.sessionIds).toContain(sessionId);
    expect((await clerk.clients.verifyClient(browser.cookie().replace("__client=", ""))).id).toBe(clientId);
    expect((await clerk.clients.getClientList({ limit: 500 })).data.map((c: { id: string }) => c.id)).toContain(
      clientId,
    );
    expect(await failure(clerk.clients.getClient("client_nobody"))).toEqual({
      status: 404,
      code: "resource_not_found",
    });
  });

  it("sign-ups: read, and given an external id that the user made by it keeps", async () => {
    const browser = frontendClient(emu.origin);
    const email = `signup.${unique().toLowerCase()}@example.com`;
    const started = await browser("POST", "/v1/client/sign_ups", {
      email_address: email,
      password: "sign-up-password-1",
    });
    const id = started.body.response.id as string;
    expect((await clerk.signUps.get(id)).emailAddress).toBe(email);

    const updated = await clerk.signUps.update({ signUpAttemptId: id, externalId: "ext-42", customAction: true });
    expect(updated).toMatchObject({ externalId: "ext-42", customAction: true });

    await browser("POST", `/v1/client/sign_ups/${id}/prepare_verification`, { strategy: "email_code" });
    const done = await browser("POST", `/v1/client/sign_ups/${id}/attempt_verification`, {
      strategy: "email_code",
      code: "424242",
    });
    expect(done.body.response.status).toBe("complete");
    expect((await clerk.users.getUser(done.body.response.created_user_id as string)).externalId).toBe("ext-42");
    expect(await failure(clerk.signUps.get("sua_nobody"))).toMatchObject({ status: 404 });
  });
});
