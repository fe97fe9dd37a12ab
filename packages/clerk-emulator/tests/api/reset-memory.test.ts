import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInBrowser, startInProcessEmulator, type InProcessEmulator } from "../../testing";

// Issue 69: what the emulator keeps in memory only (the Backend API's email and phone verifications, multi-domain
// sync tokens, webhook portal tokens, testing tokens) is state like the rest: the control API's reset takes it
// back to nothing, and a code or a token from before the reset no longer works.
const SATELLITE = "http://satellite.example";
let emu: InProcessEmulator;
let secretKey: string;

beforeAll(async () => {
  secretKey = "sk_live_emulator_reset_memory_test";
  emu = await startInProcessEmulator({ secretKey, allowedOrigins: [SATELLITE] });
});
afterAll(async () => emu?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${emu.origin}/__clerk${path}`, { headers, redirect: "manual" });
const reset = () => fetch(`${emu.origin}/__clerk/_emulator/reset`, { method: "POST" });

const signedIn = () => signedInBrowser(emu.origin);

describe("the control API's reset", () => {
  it("forgets every verification and token the APIs handed out", async () => {
    // An email verification of a seeded address (which the reset brings back with the same id).
    const emailVerification = await emu.bapi("POST", "/v1/email_addresses/idn_seed_ada/prepare_verification", {});
    expect(emailVerification.status).toBe(200);
    // A phone verification.
    const phone = await emu.bapi("POST", "/v1/phone_numbers", {
      user_id: "user_seed_ada",
      phone_number: "+447700900555",
    });
    const phoneVerification = await emu.bapi("POST", `/v1/phone_numbers/${phone.body.id}/prepare_verification`, {});
    expect(phoneVerification.status).toBe(200);
    // A multi-domain sync token.
    const browser = await signedIn();
    const sync = await browser("GET", `/v1/client/sync?redirect_url=${encodeURIComponent(`${SATELLITE}/`)}`);
    const link = new URL(sync.headers.get("location")!);
    expect(link.searchParams.get("__clerk_token")).toBeTruthy();
    // A webhook portal and a testing token.
    const portalUrl = (await emu.bapi("POST", "/v1/webhooks/svix_url")).body.svix_url as string;
    expect((await fetch(portalUrl)).status).toBe(200);
    const testingToken = (await emu.bapi("POST", "/v1/testing_tokens")).body.token as string;
    const bypassed = await browser("GET", `/v1/client?__clerk_testing_token=${testingToken}`);
    expect(bypassed.body.response.captcha_bypass).toBe(true);

    const memory = emu.emulator.store.memory;
    expect(
      [memory.emailVerifications, memory.phoneVerifications, memory.linkTokens, memory.testingTokens].map(
        (m) => m.size,
      ),
    ).toEqual([1, 1, 1, 1]);
    expect(memory.webhookPortalTokens.size).toBe(1);

    expect((await reset()).status).toBe(200);

    const fresh = emu.emulator.store.memory;
    expect(
      [fresh.emailVerifications, fresh.phoneVerifications, fresh.linkTokens, fresh.testingTokens].map((m) => m.size),
    ).toEqual([0, 0, 0, 0]);
    expect(fresh.webhookPortalTokens.size).toBe(0);
    // The code no longer verifies through the old verification.
    const attempt = await emu.bapi("POST", "/v1/email_addresses/idn_seed_ada/attempt_verification", {
      verification_id: emailVerification.body.id,
      code: "424242",
    });
    expect([attempt.status, attempt.body.errors?.[0]?.code]).toEqual([404, "resource_not_found"]);
    // The sync token links nothing.
    const viaSatellite = { "Clerk-Proxy-Url": `${SATELLITE}/__clerk`, "Clerk-Secret-Key": secretKey };
    expect((await get(`/v1/client/link${link.search}`, viaSatellite)).status).toBe(400);
    // The portal is gone.
    expect((await fetch(portalUrl)).status).toBe(404);
    // The testing token no longer bypasses anything, for a browser signed in after the reset.
    const after = await signedIn();
    const notBypassed = await after("GET", `/v1/client?__clerk_testing_token=${testingToken}`);
    expect(notBypassed.body.response.captcha_bypass).toBe(false);
  });
});
