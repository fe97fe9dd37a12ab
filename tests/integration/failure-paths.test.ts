import { readdirSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armFault } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Paths that used to hang a request or could starve the server, against the built server over real HTTP.
let server: RunningServer;
let ada: string;

beforeAll(async () => {
  // Logging on: the test reads the error's line.
  server = await startServer();
  ada = await emulatorCookie(server.origin, "ada@example.com");
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

/** A signed-in page, timed. */
async function timedPage(path: string) {
  const started = performance.now();
  const res = await fetch(server.origin + path, { headers: { Cookie: ada }, signal: AbortSignal.timeout(5_000) });
  const body = await res.text();
  return { res, body, ms: performance.now() - started };
}

describe("a document whose render fails once its shell is ready", () => {
  it("ends with the 500 page and its reference, and the next request is served as usual", async () => {
    // The test-only fault point inside entry.server's ready handler (armed through the emulator's control API).
    await armFault(server.origin, {
      endpoint: "app render-ready",
      mode: "error",
      pathIncludes: "/orgs/analytical-engines",
    });
    const { res, body, ms } = await timedPage("/orgs/analytical-engines");
    expect(res.status).toBe(500);
    expect(ms).toBeLessThan(3_000);
    const reference = res.headers.get("x-request-id")!;
    expect(body).toContain("Something went wrong on our side");
    expect(body).toMatch(new RegExp(`data-testid="error-reference"[^>]*>${reference}<`));
    // The navigation bar stays, and the log has the error under the same reference.
    expect(body).toContain('aria-label="Main"');
    await expect.poll(() => server.output(), { timeout: 2_000 }).toContain(reference);
    expect(server.output()).toContain("Injected fault");

    const next = await timedPage("/orgs/analytical-engines");
    expect(next.res.status).toBe(200);
  });
});

describe("500 connections that send their headers slowly, or nothing", () => {
  const openFds = () => readdirSync(`/proc/${server.child.pid}/fd`).length;

  it("leave signed-in pages answering quickly, and are cut with a 408 after the headers timeout", async () => {
    const port = new URL(server.origin).port;
    // How quick "quickly" is on this machine at this moment (a loaded CI host is slower): the same page
    // alone, its slowest of three, and at least 1 s.
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) alone.push((await timedPage("/orgs/analytical-engines")).ms);
    const quickly = Math.max(1_000, 3 * Math.max(...alone));
    const before = openFds();
    const sockets: Socket[] = [];
    const dribbles: NodeJS.Timeout[] = [];
    const closed: Promise<string>[] = [];
    try {
      for (let i = 0; i < 500; i++) {
        const socket = connect(Number(port), "127.0.0.1");
        sockets.push(socket);
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
        closed.push(new Promise((done) => socket.once("close", () => done(answer.split("\r\n")[0] ?? ""))));
        socket.on("error", () => undefined);
        if (i % 2 === 0) {
          // Half dribble a header line every half second; half send nothing at all.
          socket.once("connect", () =>
            socket.write(`GET /orgs/analytical-engines HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`),
          );
          dribbles.push(setInterval(() => socket.writable && socket.write(`X-Slow-${i}: 1\r\n`), 500));
        }
      }
      await Promise.all(sockets.map((s) => (s.connecting ? new Promise((ok) => s.once("connect", ok)) : null)));
      // The server holds them all (one descriptor each; a loaded machine accepts them more slowly, but
      // well within the 10 s before the headers timeout starts cutting them)...
      await expect.poll(openFds, { timeout: 9_000 }).toBeGreaterThanOrEqual(before + 500);

      // ...and real requests still pass, quickly.
      for (let i = 0; i < 3; i++) {
        const { res, ms } = await timedPage("/orgs/analytical-engines");
        expect(res.status).toBe(200);
        expect(ms).toBeLessThan(quickly);
      }

      // The headers timeout (10 s, checked every second) cuts every one of them with a 408.
      const firstLines = await Promise.race([
        Promise.all(closed),
        new Promise<never>((_, fail) =>
          setTimeout(() => fail(new Error("slow connections still open after 30 s")), 30_000),
        ),
      ]);
      expect(firstLines.filter((line) => line === "HTTP/1.1 408 Request Timeout")).toHaveLength(500);
      await expect.poll(openFds, { timeout: 5_000 }).toBeLessThan(before + 20);
      expect((await timedPage("/orgs/analytical-engines")).res.status).toBe(200);
    } finally {
      for (const dribble of dribbles) clearInterval(dribble);
      for (const socket of sockets) socket.destroy();
    }
  }, 70_000);
});
