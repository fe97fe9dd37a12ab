import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";

// Local mode runs on the emulator with no real sign-in: it must not be
// reachable under other names, and its control API must not be a web page's.
let withControl: RunningServer;
let withoutControl: RunningServer;

beforeAll(async () => {
  [withControl, withoutControl] = await Promise.all([
    startServer({ LOG_LEVEL: "silent" }),
    // Also playing a Clerk far away (CLERK_EMULATOR_LATENCY_MS).
    startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_CONTROL: undefined, CLERK_EMULATOR_LATENCY_MS: "250" }),
  ]);
});

afterAll(async () => {
  await Promise.all([withControl.stop(), withoutControl.stop()]);
});

/** A GET with the Host header as written (fetch would not let a test choose it). */
function getWithHost(server: RunningServer, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () =>
      socket.write(`GET /sign-in HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (data += chunk));
    socket.on("error", reject);
    socket.on("close", () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0),
        body: data.slice(data.indexOf("\r\n\r\n")),
      }),
    );
  });
}

describe("local mode answers only on this machine's names", () => {
  it.each(["evil.example", `evil.example:PORT`, "127.0.0.1.nip.io:PORT", "localhost:1", "10.0.0.5:PORT"])(
    "Host %s gets a 403 that says why",
    async (host) => {
      const { status, body } = await getWithHost(withControl, host.replace("PORT", String(withControl.port)));
      expect(status).toBe(403);
      expect(body).toContain("local mode");
      expect(body).toContain(`http://localhost:${withControl.port}`);
    },
  );

  it.each(["localhost:PORT", "127.0.0.1:PORT", "[::1]:PORT"])("Host %s is served", async (host) => {
    expect((await getWithHost(withControl, host.replace("PORT", String(withControl.port)))).status).toBe(200);
  });
});

describe("the emulator's control API", () => {
  it("does not exist without CLERK_EMULATOR_CONTROL=1", async () => {
    for (const [method, path] of [
      ["POST", "/__clerk/_emulator/reset"],
      ["GET", "/__clerk/_emulator/state"],
      ["POST", "/__clerk/_emulator/sessions"],
    ] as const) {
      const res = await fetch(`${withoutControl.origin}${path}`, { method, redirect: "manual" });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Clerk's own APIs are still there.
    expect((await fetch(`${withoutControl.origin}/__clerk/v1/environment`)).status).toBe(200);
  });

  it("refuses a cross-site POST (a web page trying to wipe local data) with 403", async () => {
    const res = await fetch(`${withControl.origin}/__clerk/_emulator/reset`, {
      method: "POST",
      headers: { Origin: "https://evil.example", "Content-Type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
    const sameSite = await fetch(`${withControl.origin}/__clerk/_emulator/calls`);
    expect(sameSite.status).toBe(200);
  });

  // Security finding: behind nginx's /__clerk rule (which rewrites Host, so the Host check passes), the state and
  // ready-made sessions were anyone's. The app adds no such header on its own: a test calling it straight gets through.
  it("refuses what a reverse proxy forwarded with a 403 that says why, and answers the test that calls it straight", async () => {
    const nginx = { "X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https" };
    const proxied: Record<string, string>[] = [
      nginx,
      { "X-Forwarded-Host": `localhost:${withControl.port}` },
      { Via: "1.1 proxy" },
    ];
    for (const headers of proxied) {
      const state = await fetch(`${withControl.origin}/__clerk/_emulator/state`, { headers });
      expect(state.status, JSON.stringify(headers)).toBe(403);
      const body = await state.text();
      expect(JSON.parse(body)).toMatchObject({ errors: [{ code: "control_api_direct_only" }] });
      expect(body).not.toContain("ada@example.com");
    }
    const session = await fetch(`${withControl.origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { ...nginx, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    expect(session.status).toBe(403);
    expect(await session.text()).not.toContain("sessionToken");

    const direct = await fetch(`${withControl.origin}/__clerk/_emulator/state`);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toContain("ada@example.com");
    const made = await fetch(`${withControl.origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    expect(made.status).toBe(200);
  });
});

describe("CLERK_EMULATOR_LATENCY_MS", () => {
  it("delays every Backend API answer by that much, as a Clerk far away would", async () => {
    const bapi = backendApi(withoutControl.origin, withoutControl.dataDir);
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      const res = await bapi("GET", "/v1/organizations?limit=1");
      expect(res.status).toBe(200);
      expect(performance.now() - start).toBeGreaterThanOrEqual(250);
    }
  });
});
