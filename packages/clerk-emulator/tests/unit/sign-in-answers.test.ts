import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClerkClient } from "@clerk/backend";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClerkEmulator, DEMO_PASSWORD, type ClerkEmulator } from "../../src";

// What a sign-in answers, as Clerk's own integration specs found it must (scripts/clerk-integration.sh).
//
// A sign-in lists the first factors the user can use: Clerk's <SignIn/> opens on the password
// screen whenever `password` is among them, so a user without a password (made through the Backend
// API with skip_password_requirement) must not be offered one, or no code is ever sent. Clerk's own
// sign-in-flow spec ("sign in only with phone number") found it.
const SECRET = "sk_live_emulator_first_factors";
let server: Server;
let emulator: ClerkEmulator;
let origin: string;

beforeAll(async () => {
  emulator = createClerkEmulator({ dataDir: null, mountPath: "", secretKey: SECRET, issuer: "https://x.invalid" });
  const app = express();
  app.use(emulator.router);
  server = createServer(app);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  emulator.close();
  await new Promise((done) => server.close(done));
});

async function firstFactorsOf(identifier: string): Promise<string[]> {
  const res = await fetch(`${origin}/v1/client/sign_ins`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ identifier }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { response: { status: string; supported_first_factors: { strategy: string }[] } };
  expect(body.response.status).toBe("needs_first_factor");
  return body.response.supported_first_factors.map((f) => f.strategy);
}

describe("a sign-in's first factors", () => {
  it("offer no password to a user without one, and a password to a user with one", async () => {
    const clerk = createClerkClient({ secretKey: SECRET, apiUrl: `${origin}/api` });
    const stamp = Date.now();
    const passwordless = await clerk.users.createUser({
      emailAddress: [`codes-only.${stamp}@example.com`],
      skipPasswordRequirement: true,
    });
    const withPassword = await clerk.users.createUser({
      emailAddress: [`with-password.${stamp}@example.com`],
      password: "a-long-password-2026",
    });

    const codesOnly = await firstFactorsOf(passwordless.emailAddresses[0]!.emailAddress);
    expect(codesOnly).not.toContain("password");
    expect(codesOnly).toContain("email_code");
    expect(await firstFactorsOf(withPassword.emailAddresses[0]!.emailAddress)).toContain("password");
  });
});

describe("a sign-in started on a signed-in client", () => {
  it("is Clerk's session_exists, with the client and its session in meta.client for clerk-js to take", async () => {
    const form = (fields: Record<string, string>, cookie = "") => ({
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams(fields),
    });
    const first = await fetch(
      `${origin}/v1/client/sign_ins`,
      form({ identifier: "ada@example.com", password: DEMO_PASSWORD, strategy: "password" }),
    );
    const signedIn = (await first.json()) as { response: { status: string; created_session_id: string } };
    expect(signedIn.response.status).toBe("complete");
    const cookie = first.headers
      .getSetCookie()
      .find((c) => c.startsWith("__client="))!
      .split(";")[0]!;

    // Another tab, whose <SignIn/> was open before: it knows nothing of the session yet.
    const again = await fetch(`${origin}/v1/client/sign_ins`, form({ identifier: "ada@example.com" }, cookie));
    expect(again.status).toBe(400);
    const body = (await again.json()) as {
      errors: { code: string }[];
      meta: { client?: { last_active_session_id: string | null; sessions: { id: string }[] } };
    };
    expect(body.errors[0]!.code).toBe("session_exists");
    expect(body.meta.client?.last_active_session_id).toBe(signedIn.response.created_session_id);
    expect(body.meta.client?.sessions.map((s) => s.id)).toEqual([signedIn.response.created_session_id]);
  });
});
