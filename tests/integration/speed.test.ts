import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clerkJsDir } from "../../app/lib/clerk/clerk-js-files.server";
import { startServer, type RunningServer } from "../support/server";
import { backendApi, emulatorCalls, frontendClient, newTeam, TEAM_PASSWORD } from "../support/emulator-api";
import { emulatorCookie, sessionCookieHeader } from "../support/session";

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

  it("Brotli, when asked for, with a window sized to documents (128 KB, not 4 MB) and the same content", async () => {
    const res = await rawGet("/orgs/analytical-engines", { Cookie: cookie, "Accept-Encoding": "gzip, br" });
    expect(res.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(res.body).toString("utf8")).toContain("Analytical Engines");
    // RFC 7932 §9.1: the stream's first bits give the window; 1, 000, 000 means WBITS = 17.
    expect(res.body[0]! & 0x7f).toBe(0x01);
  });

  it("tiny bodies go as they are", async () => {
    const res = await rawGet("/healthz", { "Accept-Encoding": "gzip, br" });
    expect(res.headers["content-encoding"]).toBeUndefined();
  });
});

describe("static files, compressed once and kept (server/compressed-once.ts)", () => {
  const clerkJs = "/_clerk-js/clerk.browser.js";
  const raw = () => readFileSync(join(clerkJsDir(), "clerk.browser.js"));

  it("sends clerk-js in Brotli with a 4 MB window, the build's copy, the same bytes each time, that open to the file", async () => {
    const first = await rawGet(clerkJs, { "Accept-Encoding": "gzip, deflate, br" });
    expect(first.status).toBe(200);
    expect(first.headers["content-encoding"]).toBe("br");
    expect(first.headers["vary"]).toBe("Accept-Encoding");
    expect(first.headers["cache-control"]).toBe("public, max-age=3600");
    expect(String(first.headers["content-type"])).toMatch(/javascript/);
    expect(Number(first.headers["content-length"])).toBe(first.body.length);
    expect(brotliDecompressSync(first.body).equals(raw())).toBe(true);
    // RFC 7932 §9.1: a first byte of 0x2b... gives WBITS 22 (the documents' 128 KB window would be 0x01).
    expect(first.body[0]! & 0x7f).not.toBe(0x01);
    // It is the build's copy (scripts/precompress.mjs: Brotli 11), smaller than the server's own quality 5.
    const built = readFileSync(
      join("build", "precompressed", `${createHash("sha256").update(raw()).digest("hex")}.br`),
    );
    expect(first.body.equals(built)).toBe(true);
    const quality5 = brotliCompressSync(raw(), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 22 },
    });
    expect(first.body.length).toBeLessThan(quality5.length);
    const second = await rawGet(clerkJs, { "Accept-Encoding": "br" });
    expect(second.body.equals(first.body)).toBe(true);
    // Revalidated, it is not sent again.
    const again = await rawGet(clerkJs, { "Accept-Encoding": "br", "If-None-Match": String(first.headers["etag"]) });
    expect(again.status).toBe(304);
  });

  it("gzip for a browser without Brotli; as it is for one that asks for neither; a build file without validators", async () => {
    const gzipped = await rawGet(clerkJs, { "Accept-Encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.body).equals(raw())).toBe(true);
    const plain = await rawGet(clerkJs, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.equals(raw())).toBe(true);
    const html = await (await fetch(`${server.origin}/`)).text();
    const module = /\/build\/_shared\/chunk-[A-Z0-9]+\.js/.exec(html)![0];
    const built = await rawGet(module, { "Accept-Encoding": "br" });
    expect(built.headers).toMatchObject({
      "content-encoding": "br",
      "cache-control": "public, max-age=31536000, immutable",
    });
    expect(built.headers["etag"]).toBeUndefined();
  });

  it("answers a missing file with a 404 and a path out of the folder with express.static's 403, never a 500", async () => {
    expect((await rawGet("/_clerk-js/nothing-here.js", { "Accept-Encoding": "br" })).status).toBe(404);
    for (const path of ["/_clerk-js/..%2f..%2fpackage.json", "/build/%2e%2e/server.js"]) {
      const res = await rawGet(path, { "Accept-Encoding": "br" });
      expect([403, 404], path).toContain(res.status);
    }
  });
});

describe("Server-Timing", () => {
  const metrics = (value: unknown) =>
    String(value ?? "")
      .split(", ")
      .map((m) => m.split(";")[0]);

  it("documents say how long the session check, the upstream calls and the render took", async () => {
    // The members directory reads Clerk on every view (the organization's home is served from short caches).
    const res = await rawGet("/orgs/analytical-engines/members?q=ada", { Cookie: cookie });
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

describe("one authentication and no Clerk read to authorize the active organization", () => {
  const bapi = () => backendApi(server.origin, server.dataDir);
  const calls = () => emulatorCalls(server.origin);
  /** Backend API calls made while `work` runs, by endpoint. */
  async function backendCallsDuring(work: () => Promise<unknown>) {
    const before = await calls();
    await work();
    const after = await calls();
    return Object.fromEntries(
      Object.entries(after)
        .filter(([endpoint, n]) => endpoint.startsWith("bapi ") && n !== (before[endpoint] ?? 0))
        .map(([endpoint, n]) => [endpoint, n - (before[endpoint] ?? 0)]),
    );
  }
  const total = (byEndpoint: Record<string, number>) => Object.values(byEndpoint).reduce((a, b) => a + b, 0);
  const MEMBERSHIPS = "bapi GET /v1/users/:id/organization_memberships";

  /** A team's admin, signed in with the team active in their session token. */
  async function activeAdmin() {
    const team = await newTeam(bapi());
    return { team, cookie: await emulatorCookie(server.origin, team.admin.email, team.org.id) };
  }

  it("a document checks the session once, across the root, layout and page loaders", async () => {
    const { team, cookie: admin } = await activeAdmin();
    for (const path of [`/orgs/${team.org.slug}`, `/orgs/${team.org.slug}/members`]) {
      const res = await rawGet(path, { Cookie: admin });
      expect(res.status).toBe(200);
      expect(String(res.headers["server-timing"])).toMatch(/(^|, )auth;dur=[\d.]+;desc="1 call"/);
    }
  });

  it("viewing the active organization makes no Backend API call to authorize, and at most one in all", async () => {
    const { team, cookie: admin } = await activeAdmin();
    let res: Awaited<ReturnType<typeof rawGet>> | undefined;
    const first = await backendCallsDuring(
      async () => (res = await rawGet(`/orgs/${team.org.slug}`, { Cookie: admin })),
    );
    expect(res?.status).toBe(200);
    expect(first[MEMBERSHIPS]).toBeUndefined();
    // Its name and its newest members, read side by side on a cold cache…
    expect(total(first)).toBeLessThanOrEqual(2);
    // …and from this instance's short caches on the next views.
    const again = await backendCallsDuring(() => rawGet(`/orgs/${team.org.slug}`, { Cookie: admin }));
    expect(total(again)).toBe(0);
  });

  it("another organization is checked against one memberships read", async () => {
    const { team, cookie: admin } = await activeAdmin();
    const other = await newTeam(bapi());
    await bapi()("POST", `/v1/organizations/${other.org.id}/memberships`, {
      user_id: team.admin.id,
      role: "org:member",
    });
    let status = 0;
    const byEndpoint = await backendCallsDuring(
      async () => (status = (await rawGet(`/orgs/${other.org.slug}`, { Cookie: admin })).status),
    );
    expect(status).toBe(200);
    expect(byEndpoint[MEMBERSHIPS]).toBe(1);
  });

  it("a signed-in / goes to the active organization without asking Clerk", async () => {
    const { team, cookie: admin } = await activeAdmin();
    let res: Awaited<ReturnType<typeof rawGet>> | undefined;
    const byEndpoint = await backendCallsDuring(async () => (res = await rawGet("/", { Cookie: admin })));
    expect(res?.status).toBe(302);
    expect(res?.headers.location).toBe(`/orgs/${team.org.slug}`);
    expect(total(byEndpoint)).toBe(0);
  });

  it("a removed member loses access at once, with the token they hold (Clerk's webhook says so)", async () => {
    const team = await newTeam(bapi(), { members: 1 });
    const member = team.members[0]!;
    const fapi = frontendClient(server.origin);
    const signIn = await fapi("POST", "/v1/client/sign_ins", { identifier: member.email, password: TEAM_PASSWORD });
    const sessionId = signIn.body.response.created_session_id as string;
    await fapi("POST", `/v1/client/sessions/${sessionId}/touch`, { active_organization_id: team.org.id });
    const tokenCookie = async () => {
      const { body } = await fapi("POST", `/v1/client/sessions/${sessionId}/tokens`);
      const { iat } = JSON.parse(Buffer.from(String(body.jwt).split(".")[1]!, "base64url").toString()) as {
        iat: number;
      };
      return sessionCookieHeader(body.jwt as string, iat);
    };
    const before = await tokenCookie();
    expect((await rawGet(`/orgs/${team.org.slug}`, { Cookie: before })).status).toBe(200);

    const removed = await bapi()("DELETE", `/v1/organizations/${team.org.id}/memberships/${member.id}`);
    expect(removed.status).toBe(200);
    // The token they hold still names the organization (it lives a minute at most), but the webhook
    // for the removal (local mode: the emulator sends them to this server) ends its say.
    await expect.poll(async () => (await rawGet(`/orgs/${team.org.slug}`, { Cookie: before })).status).toBe(404);
    // The next token Clerk gives them does not name it.
    expect((await rawGet(`/orgs/${team.org.slug}`, { Cookie: await tokenCookie() })).status).toBe(404);
  });
});

describe("the switcher's list", () => {
  it("comes from its own route, private and briefly cacheable, and no page waits on it", async () => {
    const res = await rawGet("/resources/organizations", { Cookie: cookie });
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("private, max-age=5");
    const { organizations } = JSON.parse(res.body.toString()) as { organizations: { name: string }[] };
    expect(organizations.map((o) => o.name)).toEqual(["Analytical Engines", "Difference & Co"]);

    const signedOut = await rawGet("/resources/organizations", {});
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers["cache-control"]).toBe("private, no-store");
  });
});
