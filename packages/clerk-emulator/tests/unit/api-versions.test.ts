import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClerkClient } from "@clerk/backend";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClerkEmulator, DEMO_PASSWORD, type ClerkEmulator } from "../../src";

// Core 2 (@clerk/backend 2, API version 2025-11-10) and Core 3 (@clerk/backend 3,
// 2026-05-12) set an organization's metadata differently: Core 3 sends
// `PUT /v1/organizations/:id/metadata` (replace) where Core 2 sent metadata in
// `PATCH /v1/organizations/:id`. The emulator answers both, whichever version is named.
const SECRET = "sk_live_emulator_api_versions";
let server: Server;
let emulator: ClerkEmulator;
let api: string;

beforeAll(async () => {
  emulator = createClerkEmulator({ dataDir: null, mountPath: "", secretKey: SECRET, issuer: "https://x.invalid" });
  const app = express();
  app.use(emulator.router);
  server = createServer(app);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  emulator.close();
  await new Promise((done) => server.close(done));
});

const call = (version: string, method: string, path: string, body: unknown) =>
  fetch(`${api}/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json", "Clerk-API-Version": version },
    body: JSON.stringify(body),
  });

describe("organization metadata across API versions", () => {
  it("merges with Core 2's calls and replaces with Core 3's PUT", async () => {
    const clerk = createClerkClient({ secretKey: SECRET, apiUrl: api });
    const org = await clerk.organizations.createOrganization({ name: `Versions ${Date.now()}` });

    // Core 2: metadata in the organization's PATCH, and the merging PATCH …/metadata.
    await clerk.organizations.updateOrganization(org.id, { publicMetadata: { plan: "pro", seats: { max: 5 } } });
    const merged = await clerk.organizations.updateOrganizationMetadata(org.id, {
      publicMetadata: { seats: { used: 2 } },
    });
    expect(merged.publicMetadata).toEqual({ plan: "pro", seats: { max: 5, used: 2 } });

    // Core 3: PUT replaces each field it names, and leaves the others.
    const replaced = await call("2026-05-12", "PUT", `/organizations/${org.id}/metadata`, {
      public_metadata: { plan: "team" },
    });
    expect(replaced.status).toBe(200);
    const body = (await replaced.json()) as { public_metadata: unknown; private_metadata: unknown };
    expect(body.public_metadata).toEqual({ plan: "team" });
    expect(body.private_metadata).toEqual({});

    const patched = await call("2026-05-12", "PATCH", `/organizations/${org.id}/metadata`, {
      private_metadata: { billing: "invoice" },
    });
    expect(((await patched.json()) as { private_metadata: unknown }).private_metadata).toEqual({ billing: "invoice" });
  });

  it("refuses metadata that is not an object, as Clerk does", async () => {
    const clerk = createClerkClient({ secretKey: SECRET, apiUrl: api });
    const org = await clerk.organizations.createOrganization({ name: `Versions bad ${Date.now()}` });
    const res = await call("2026-05-12", "PUT", `/organizations/${org.id}/metadata`, { public_metadata: [1] });
    expect(res.status).toBe(422);
  });
});

// clerk-js 6.40 (Core 3) names Frontend API version 2026-08-20 (SUPPORTED_FAPI_VERSION, clerk/javascript
// 777ed6d543; 2026-07-14 before it, 8dcbbb24f0). What it changes is passkeys as a second factor: Clerk
// lists `passkey` in `supported_second_factors` only to clients on that version, and only when the
// instance lets passkeys satisfy the second factor and the user has one. The emulator has no passkeys
// (`passkey_settings.satisfies_second_factor: false`), so each version gets the same answers.
describe("Frontend API version 2026-08-20 (clerk-js 6.40)", () => {
  const fapi = async (version: string, method: string, path: string, form?: Record<string, string>, cookie = "") => {
    const res = await fetch(`${api.replace(/\/api$/, "")}/v1${path}?__clerk_api_version=${version}`, {
      method,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "http://127.0.0.1", Cookie: cookie },
      body: form ? new URLSearchParams(form) : undefined,
    });
    const client = res.headers.getSetCookie().find((c) => c.startsWith("__client="));
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie: client?.split(";")[0] };
  };

  it("answers the environment as for 2026-05-12, with passkeys not satisfying the second factor", async () => {
    const latest = await fapi("2026-08-20", "GET", "/environment");
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual((await fapi("2026-05-12", "GET", "/environment")).body);
    expect(latest.body).toMatchObject({ user_settings: { passkey_settings: { satisfies_second_factor: false } } });
  });

  it("signs in with a password and offers the same factors, never a passkey second factor", async () => {
    const factorsOf = async (version: string) => {
      const created = await fapi(version, "POST", "/client/sign_ins", { identifier: "grace@example.com" });
      expect(created.status).toBe(200);
      const signIn = created.body.response as {
        id: string;
        status: string;
        supported_first_factors: { strategy: string }[];
        supported_second_factors: { strategy: string }[] | null;
      };
      expect(signIn.status).toBe("needs_first_factor");
      const attempt = await fapi(
        version,
        "POST",
        `/client/sign_ins/${signIn.id}/attempt_first_factor`,
        { strategy: "password", password: DEMO_PASSWORD },
        created.cookie,
      );
      expect(attempt.status).toBe(200);
      expect((attempt.body.response as { status: string }).status).toBe("complete");
      return {
        first: signIn.supported_first_factors.map((f) => f.strategy),
        second: (signIn.supported_second_factors ?? []).map((f) => f.strategy),
      };
    };
    const latest = await factorsOf("2026-08-20");
    expect(latest).toEqual(await factorsOf("2026-05-12"));
    expect(latest.first).toContain("password");
    expect(latest.second).not.toContain("passkey");
  });
});
