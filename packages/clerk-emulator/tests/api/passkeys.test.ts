import type { Page } from "@playwright/test";
import { beforeAll, describe, expect, it } from "vitest";
import { backendSdks } from "../support/clerk-sdks";
import { DEMO_PASSWORD } from "../../src";
import { browserAppForTests } from "../support/browser-app";

// Issue 49 (stretch): passkeys, registered and used by the real clerk-js 5 in
// Chromium with a virtual WebAuthn authenticator (Chrome DevTools Protocol),
// and verified for real by the emulator (src/domain/webauthn.ts): the
// registration's challenge, origin, RP ID and COSE key, the assertion's
// signature and counter. The page is on `localhost` (an IP address cannot be a
// WebAuthn RP ID).
const app = browserAppForTests({ emulator: { passkeys: true }, hostname: "localhost" });
let page: Page;

type PageClerk = {
  load(): Promise<void>;
  user: {
    id: string;
    passkeys: { id: string }[];
    createPasskey(): Promise<{ id: string; verification: { status: string } }>;
  } | null;
  client: {
    signIn: {
      create(p: object): Promise<{ createdSessionId: string; status: string }>;
      authenticateWithPasskey(p: { flow: string }): Promise<{ createdSessionId: string; status: string }>;
    };
  };
  setActive(p: { session: string }): Promise<void>;
  signOut(): Promise<void>;
};

beforeAll(async () => {
  const context = await app.newContext();
  // clerk-js offers passkeys only to a browser that is not automated (@clerk/shared `isValidBrowser`
  // reads navigator.webdriver); WebAuthn itself is Chromium's own, answered by the virtual authenticator.
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, "webdriver", { get: () => false }));
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}, 60_000);

const bapiUser = async (id: string) =>
  (
    await fetch(`${app.origin}/__clerk/api/v1/users/${id}`, { headers: { Authorization: `Bearer ${app.secretKey}` } })
  ).json();

describe("passkeys with clerk-js 5 and a virtual authenticator", () => {
  it("user.createPasskey() registers one; after signing out, authenticateWithPasskey signs the same person in", async () => {
    await page.goto(app.origin);
    await page.waitForFunction(() => "Clerk" in window, null, { timeout: 30_000 });
    const registered = await page.evaluate(async (password) => {
      const clerk = (window as unknown as { Clerk: PageClerk }).Clerk;
      await clerk.load();
      const signIn = await clerk.client.signIn.create({ identifier: "ada@example.com", password });
      await clerk.setActive({ session: signIn.createdSessionId });
      const passkey = await clerk.user!.createPasskey();
      return { id: passkey.id, status: passkey.verification.status, user: clerk.user!.id };
    }, DEMO_PASSWORD);
    expect(registered).toMatchObject({ status: "verified", user: "user_seed_ada" });
    const stored = app.emulator.store.state.passkeys.find((p) => p.id === registered.id)!;
    expect(stored).toMatchObject({ verified: true, alg: -7, publicKey: { kty: "EC", crv: "P-256" } });
    expect((await bapiUser("user_seed_ada")).passkeys.map((p: { id: string }) => p.id)).toEqual([registered.id]);

    // Signing out sends the page to the instance's after-sign-out URL: a fresh page, signed out.
    await Promise.all([
      page.waitForEvent("load"),
      page.evaluate(() => (window as unknown as { Clerk: PageClerk }).Clerk.signOut()),
    ]);
    await page.waitForFunction(() => "Clerk" in window, null, { timeout: 30_000 });
    const signedIn = await page.evaluate(async () => {
      const clerk = (window as unknown as { Clerk: PageClerk }).Clerk;
      await clerk.load();
      const before = clerk.user?.id ?? null;
      const signIn = await clerk.client.signIn.authenticateWithPasskey({ flow: "discoverable" });
      await clerk.setActive({ session: signIn.createdSessionId });
      return { before, status: signIn.status, user: clerk.user?.id ?? null };
    });
    expect(signedIn).toEqual({ before: null, status: "complete", user: "user_seed_ada" });
    expect(app.emulator.store.state.passkeys.find((p) => p.id === registered.id)!.lastUsedAt).not.toBeNull();
    expect(app.offLoopback).toEqual([]);
  }, 60_000);

  it("an assertion for another challenge is refused, and signs no one in", async () => {
    const passkey = app.emulator.store.state.passkeys.find((p) => p.verified)!;
    let cookie = "";
    const call = async (path: string, form: Record<string, string>) => {
      const res = await fetch(`${app.origin}/__clerk${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: app.origin },
        body: new URLSearchParams(form).toString(),
      });
      cookie = /__client=[^;]+/.exec(res.headers.getSetCookie().join(";"))?.[0] ?? cookie;
      return { status: res.status, body: await res.json() };
    };
    const created = await call("/v1/client/sign_ins", { strategy: "passkey" });
    const nonce = JSON.parse(created.body.response.first_factor_verification.nonce as string);
    expect(nonce).toMatchObject({ rpId: "localhost", userVerification: "required" });
    const clientData = Buffer.from(
      JSON.stringify({ type: "webauthn.get", challenge: "not-the-challenge", origin: app.origin }),
    ).toString("base64url");
    const forged = await call(`/v1/client/sign_ins/${created.body.response.id}/attempt_first_factor`, {
      strategy: "passkey",
      public_key_credential: JSON.stringify({
        id: passkey.credentialId,
        rawId: passkey.credentialId,
        type: "public-key",
        response: { clientDataJSON: clientData, authenticatorData: "AAAA", signature: "AAAA", userHandle: null },
      }),
    });
    expect([forged.status, forged.body.errors[0].code]).toEqual([400, "passkey_invalid"]);
    expect(forged.body.errors[0].long_message).toMatch(/challenge/);
  });
  it("the profile's passkeys: read, renamed and removed by their owner only", async () => {
    const passkey = app.emulator.store.state.passkeys.find((p) => p.verified)!;
    const browserAs = async (identifier: string) => {
      let cookie = "";
      const call = async (method: string, path: string, form?: Record<string, string>) => {
        const res = await fetch(`${app.origin}/__clerk${path}`, {
          method,
          headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: app.origin },
          body: form ? new URLSearchParams(form).toString() : undefined,
        });
        cookie = /__client=[^;]+/.exec(res.headers.getSetCookie().join(";"))?.[0] ?? cookie;
        return { status: res.status, body: await res.json() };
      };
      await call("POST", "/v1/client/sign_ins", { identifier, password: DEMO_PASSWORD });
      return call;
    };
    const grace = await browserAs("grace@example.com");
    expect((await grace("GET", `/v1/me/passkeys/${passkey.id}`)).status).toBe(404);
    const ada = await browserAs("ada@example.com");
    expect((await ada("GET", `/v1/me/passkeys/${passkey.id}`)).body.response).toMatchObject({
      id: passkey.id,
      verification: { status: "verified", strategy: "passkey" },
    });
    const renamed = await ada("PATCH", `/v1/me/passkeys/${passkey.id}`, { name: "Work laptop" });
    expect(renamed.body.response.name).toBe("Work laptop");
    const removed = await ada("DELETE", `/v1/me/passkeys/${passkey.id}`);
    expect(removed.body.response).toMatchObject({ object: "passkey", id: passkey.id, deleted: true });
    expect((await ada("GET", `/v1/me/passkeys/${passkey.id}`)).status).toBe(404);
    expect((await bapiUser("user_seed_ada")).passkeys).toEqual([]);
  });

  it.each(backendSdks)("the Backend API removes a user's passkey: %s (users.deleteUserPasskey)", async (_name, sdk) => {
    const now = Date.now();
    const passkey = {
      id: `passkey_bapi_${now}`,
      userId: "user_seed_grace",
      name: "Phone",
      credentialId: `cred_${now}`,
      publicKey: {},
      alg: -7,
      signCount: 0,
      challenge: null,
      verified: true,
      lastUsedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    app.emulator.store.write((state) => state.passkeys.push(passkey));
    const clerk = (await sdk())({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
    expect((await bapiUser("user_seed_grace")).passkeys.map((p: { id: string }) => p.id)).toContain(passkey.id);
    const users = clerk.users as unknown as {
      deleteUserPasskey(p: {
        userId: string;
        passkeyIdentificationId: string;
      }): Promise<{ id: string; deleted: boolean }>;
    };
    const deleted = await users.deleteUserPasskey({ userId: "user_seed_grace", passkeyIdentificationId: passkey.id });
    expect([deleted.id, deleted.deleted]).toEqual([passkey.id, true]);
    expect((await bapiUser("user_seed_grace")).passkeys).toEqual([]);
    // Another user's passkey, or one already gone: Clerk's 404.
    const again = await users
      .deleteUserPasskey({ userId: "user_seed_grace", passkeyIdentificationId: passkey.id })
      .then(
        () => null,
        (e: { status?: number }) => e.status,
      );
    expect(again).toBe(404);
  });
});
