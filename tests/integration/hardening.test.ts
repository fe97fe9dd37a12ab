import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keysModeEnv, startServer, type RunningServer } from "../support/server";
import { createTestKeyPair, emulatorCookie } from "../support/session";

// Production hardening: headers, CSP, cross-site writes, body limits, request
// logs and rate limits, against the built server.
let server: RunningServer;
let keys: RunningServer;
let strict: RunningServer;

beforeAll(async () => {
  [server, keys, strict] = await Promise.all([
    startServer(),
    startServer({ ...keysModeEnv(createTestKeyPair().publicKeyPem), LOG_LEVEL: "silent" }),
    startServer({ RATE_LIMIT_SCALE: "1", LOG_LEVEL: "silent" }),
  ]);
});

afterAll(async () => {
  await Promise.all([server.stop(), keys.stop(), strict.stop()]);
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function post(target: RunningServer, path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(target.origin + path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body,
    redirect: "manual",
  });
}

/** Sends bytes as they are (fetch cannot send a bad target or Host) and resolves with the status line and body. */
function rawRequest(target: RunningServer, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(target.port, "127.0.0.1", () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (data += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
  });
}

function logLines(target: RunningServer, event: string) {
  return target
    .output()
    .split("\n")
    .filter((l) => l.includes(`"event":"${event}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function directives(csp: string | null): Map<string, string> {
  return new Map(
    (csp ?? "").split(/;\s*/).map((d) => [d.split(" ")[0]!, d.slice(d.indexOf(" ") + 1)] as [string, string]),
  );
}

describe("headers", () => {
  it("every page carries the security headers and no X-Powered-By", async () => {
    const res = await fetch(`${server.origin}/sign-in`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("permissions-policy")).toContain("camera=()");
    expect(res.headers.get("x-powered-by")).toBeNull();
    // Plain HTTP (local): no HSTS.
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });

  it("the build's scripts, stylesheets and fonts carry nosniff and a year's cache, not the document-only headers", async () => {
    const html = await (await fetch(`${server.origin}/sign-in`)).text();
    const assets = [...html.matchAll(/"(\/build\/[^"]+\.(?:js|css|woff2))"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith(".js")) && assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const asset of new Set(assets)) {
      const res = await fetch(`${server.origin}${asset}`, { headers: { "X-Forwarded-Proto": "https" } });
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("x-content-type-options"), asset).toBe("nosniff");
      expect(res.headers.get("cache-control"), asset).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("strict-transport-security"), asset).toBe("max-age=63072000; includeSubDomains");
      for (const header of ["content-security-policy", "x-frame-options", "permissions-policy", "etag"])
        expect(res.headers.get(header), `${asset} ${header}`).toBeNull();
      await res.arrayBuffer();
    }
    // A missing file under /build, named like a script or not, is a bare 404 that runs nothing, not a page.
    for (const path of ["/build/nothing-here.js", "/build/nothing-here.svg"]) {
      const missing = await fetch(`${server.origin}${path}`);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get("content-security-policy"), path).toBe("default-src 'none'");
      expect(missing.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(await missing.text(), path).not.toContain("<script");
    }
  });

  it("behind an HTTPS proxy, HSTS and upgrade-insecure-requests are added", async () => {
    const res = await fetch(`${server.origin}/sign-in`, { headers: { "X-Forwarded-Proto": "https" } });
    expect(res.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    expect(res.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });

  it("the CSP is enforced with a fresh nonce that every script carries", async () => {
    const [a, b] = await Promise.all([fetch(`${server.origin}/`), fetch(`${server.origin}/`)]);
    expect(a.headers.get("content-security-policy-report-only")).toBeNull();
    const csp = directives(a.headers.get("content-security-policy"));
    const nonce = /'nonce-([^']+)'/.exec(csp.get("script-src") ?? "")?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{22,}$/);
    expect(csp.get("script-src")).toContain("'strict-dynamic'");
    expect(csp.get("frame-ancestors")).toBe("'none'");
    expect(csp.get("object-src")).toBe("'none'");
    // Local mode: Clerk is /__clerk on this origin, analytics go through /ingest.
    expect(csp.get("connect-src")).toBe("'self'");
    const html = await a.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(2);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(b.headers.get("content-security-policy")).not.toContain(nonce!);
  });

  it("with real Clerk, the CSP allows exactly its Frontend API host, images and captcha", async () => {
    const csp = directives((await fetch(`${keys.origin}/`)).headers.get("content-security-policy"));
    expect(csp.get("connect-src")).toBe("'self' https://clerk.teamwork.invalid");
    expect(csp.get("img-src")).toBe("'self' data: blob: https://img.clerk.com");
    expect(csp.get("frame-src")).toBe("https://challenges.cloudflare.com");
  });

  it("X-Request-Id is echoed when sane and replaced when not", async () => {
    expect(
      (await fetch(`${server.origin}/healthz`, { headers: { "X-Request-Id": "trace-abc-12345" } })).headers.get(
        "x-request-id",
      ),
    ).toBe("trace-abc-12345");
    const replaced = (await fetch(`${server.origin}/healthz`, { headers: { "X-Request-Id": "<script>" } })).headers.get(
      "x-request-id",
    );
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("cross-site writes", () => {
  const actions: [string, string][] = [
    ["/resources/theme", form({ theme: "dark" })],
    ["/resources/sign-out", ""],
    ["/resources/analytics", form({ analytics: "off" })],
    ["/orgs/new", form({ name: "Forged" })],
    ["/orgs/analytical-engines/members", form({ emailAddress: "x@example.com", role: "org:admin" })],
  ];

  it.each(actions)("a POST to %s from another origin is refused with 403", async (path, body) => {
    const res = await post(server, path, body, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Not allowed from another site");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("so is one that only says it is cross-site, or comes from an opaque origin", async () => {
    expect(
      (await post(server, "/resources/theme", form({ theme: "dark" }), { "Sec-Fetch-Site": "cross-site" })).status,
    ).toBe(403);
    expect((await post(server, "/resources/theme", form({ theme: "dark" }), { Origin: "null" })).status).toBe(403);
  });

  it("the same origin is let through, and redirectTo only ever leads here", async () => {
    for (const target of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
      const res = await post(server, "/resources/theme", form({ theme: "dark", redirectTo: target }), {
        Origin: server.origin,
      });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
    }
  });
});

describe("bodies", () => {
  it("over 1 MB is refused with 413 before it is read", async () => {
    const res = await post(server, "/resources/theme", `theme=dark&pad=${"x".repeat(1_100_000)}`);
    expect(res.status).toBe(413);
  });

  it("a streamed body without a length is refused with 411", async () => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("theme=dark"));
        controller.close();
      },
    });
    const res = await fetch(`${server.origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(411);
  });
});

describe("request targets", () => {
  it.each([
    ["an absolute-form target", "GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1"],
    ["an asterisk target", "GET * HTTP/1.1\r\nHost: 127.0.0.1"],
    ["a malformed Host", "GET / HTTP/1.1\r\nHost: bad host!"],
    ["a Host with a path in it", "GET / HTTP/1.1\r\nHost: 127.0.0.1/evil"],
    ["a malformed X-Forwarded-Host", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Host: a b"],
  ])("%s gets the short 400 page, not a 500", async (_what, head) => {
    const { status, body } = await rawRequest(server, head);
    expect(status).toBe(400);
    expect(body).toContain("<h1>Bad request</h1>");
    expect(body).not.toMatch(/TypeError|Invalid URL|at .*\.js/);
  });
});

describe("request log", () => {
  it("one line per request with method, path, status, duration and request id; no query, no health checks or assets", async () => {
    const res = await fetch(`${server.origin}/sign-in?email=someone@example.com`, {
      headers: { "X-Request-Id": "log-check-000001" },
    });
    await res.text();
    await fetch(`${server.origin}/healthz`);
    await vi.waitFor(() =>
      expect(logLines(server, "request").some((l) => l.request_id === "log-check-000001")).toBe(true),
    );
    const lines = logLines(server, "request");
    expect(lines.filter((l) => l.request_id === "log-check-000001")).toEqual([
      expect.objectContaining({ method: "GET", path: "/sign-in", status: 200, duration_ms: expect.any(Number) }),
    ]);
    expect(server.output()).not.toContain("someone@example.com");
    expect(lines.some((l) => l.path === "/healthz" || String(l.path).startsWith("/build/"))).toBe(false);
  });

  it("the 4xx answers Remix makes itself (405, 404) are not logged as unexpected errors", async () => {
    const noAction = await post(server, "/orgs/analytical-engines", "", { "X-Request-Id": "log-check-405-0001" });
    expect(noAction.status).toBe(405);
    const unknown = await fetch(`${server.origin}/no/such/page.data`, {
      headers: { "X-Request-Id": "log-check-404-0001" },
    });
    expect(unknown.status).toBe(404);
    await vi.waitFor(() =>
      expect(logLines(server, "request").filter((l) => String(l.request_id).startsWith("log-check-4"))).toHaveLength(2),
    );
    const unexpected = logLines(server, "unexpected_error").filter((l) =>
      String(l.request_id).startsWith("log-check-4"),
    );
    expect(unexpected).toEqual([]);
    expect(server.output()).not.toContain("[object Object]");
  });
});

describe("rate limits (at their real values)", () => {
  it("the 31st theme change in a minute gets a 429 page with Retry-After that keeps the navigation", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await post(strict, "/resources/theme", form({ theme: "dark", redirectTo: "/" }))).status);
    expect(new Set(statuses)).toEqual(new Set([303]));
    const limited = await post(strict, "/resources/theme", form({ theme: "light" }));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    const html = await limited.text();
    expect(html).toContain("Too many attempts");
    expect(html).toContain('class="nav-bar"');
    expect(limited.headers.get("set-cookie")).toBeNull();
  });

  it("invitations are limited per person: one admin's limit does not stop another", async () => {
    const ada = await emulatorCookie(strict.origin, "ada@example.com");
    const grace = await emulatorCookie(strict.origin, "grace@example.com");
    const invite = (cookie: string, slug: string, n: number) =>
      post(strict, `/orgs/${slug}/members`, form({ emailAddress: `limit-${n}@example.com`, role: "org:member" }), {
        Cookie: cookie,
      });
    for (let n = 0; n < 20; n++) expect((await invite(ada, "analytical-engines", n)).status).toBe(200);
    expect((await invite(ada, "analytical-engines", 20)).status).toBe(429);
    expect((await invite(grace, "difference-co", 21)).status).toBe(200);
  });
});
