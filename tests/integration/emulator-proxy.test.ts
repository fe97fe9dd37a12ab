import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { emulatorSession } from "../support/session";

// Local mode's emulator reached through another app's reverse proxy (a Core 3
// fixture on its own origin): @clerk/backend 3 sends its handshake through the
// proxy, which rewrites `Host`. The emulator follows Clerk behind its
// documented Frontend API proxy: the redirect may go to the instance's allowed
// origins and to the host the browser used (X-Forwarded-Host from a trusted
// proxy), never elsewhere.
const FIXTURE = "http://localhost:5173";
let server: RunningServer;
let client = "";

beforeAll(async () => {
  server = await startServer({ CLERK_EMULATOR_CONTROL: "1", CLERK_EMULATOR_ALLOWED_ORIGINS: FIXTURE });
  client = `__client=${(await emulatorSession(server.origin, "ada@example.com")).clientId}`;
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

/** Core 3's handshake: `format=nonce`, API version 2026-05-12. */
const handshake = (redirect: string, headers: Record<string, string> = {}) =>
  fetch(
    `${server.origin}/__clerk/v1/client/handshake?${new URLSearchParams({
      redirect_url: redirect,
      format: "nonce",
      __clerk_api_version: "2026-05-12",
    })}`,
    { headers: { Cookie: client, ...headers }, redirect: "manual" },
  );

describe("the handshake behind another app's proxy, in local mode", () => {
  it("sends the browser back to an allowed origin with a nonce", async () => {
    const res = await handshake(`${FIXTURE}/dashboard`);
    expect(res.status).toBe(307);
    const back = new URL(res.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(`${FIXTURE}/dashboard`);
    expect(back.searchParams.get("__clerk_handshake_nonce")).toBeTruthy();
  });

  it("sends it back to the host a trusted proxy says the browser used", async () => {
    const res = await handshake("http://localhost:4173/", { "X-Forwarded-Host": "localhost:4173" });
    expect(res.status).toBe(307);
    expect(new URL(res.headers.get("location")!).origin).toBe("http://localhost:4173");
  });

  it("refuses any other origin, as Clerk does", async () => {
    const res = await handshake("http://localhost:4173/");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { code: string; meta: { param_name?: string } }[] };
    expect(body.errors[0]).toMatchObject({ code: "form_param_value_invalid", meta: { param_name: "redirect_url" } });
  });
});
