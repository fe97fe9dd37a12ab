import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

let server: RunningServer;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
  cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

/** The raw bytes, as a browser receives them (fetch would decompress them). */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = request(`${server.origin}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Zlib's sync-flush marker: one per `res.flush()` that reached compression. */
function syncFlushes(body: Buffer): number {
  let count = 0;
  for (
    let i = body.indexOf(Buffer.from([0, 0, 0xff, 0xff]));
    i !== -1;
    i = body.indexOf(Buffer.from([0, 0, 0xff, 0xff]), i + 1)
  )
    count++;
  return count;
}

describe("compression", () => {
  it("a streamed document is gzipped whole, not flushed after each of its chunks", async () => {
    const res = await rawGet("/orgs/analytical-engines", { Cookie: cookie, "Accept-Encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    const html = gunzipSync(res.body).toString("utf8");
    expect(html).toContain("Analytical Engines");
    expect(html).toContain("</html>");
    // Remix flushes after each of React's ~10-15 chunks; coalesced, the burst costs one.
    expect(syncFlushes(res.body)).toBeLessThanOrEqual(2);
  });

  it("tiny bodies go as they are", async () => {
    const res = await rawGet("/healthz", { "Accept-Encoding": "gzip, br" });
    expect(res.headers["content-encoding"]).toBeUndefined();
  });
});

describe("Server-Timing", () => {
  const metrics = (value: unknown) =>
    String(value ?? "")
      .split(", ")
      .map((m) => m.split(";")[0]);

  it("documents say how long the session check, the upstream calls and the render took", async () => {
    const res = await rawGet("/orgs/analytical-engines", { Cookie: cookie });
    expect(metrics(res.headers["server-timing"])).toEqual(expect.arrayContaining(["auth", "upstream", "render"]));
    expect(String(res.headers["server-timing"])).toMatch(/upstream;dur=\d+\.\d;desc="\d+ calls?"/);
  });

  it("data requests carry it too", async () => {
    const res = await rawGet("/orgs/analytical-engines/members?_data=routes%2Forgs.%24slug.members", {
      Cookie: cookie,
    });
    expect(res.status).toBe(200);
    expect(metrics(res.headers["server-timing"])).toEqual(expect.arrayContaining(["auth", "upstream"]));
  });
});
