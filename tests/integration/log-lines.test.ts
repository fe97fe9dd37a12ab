import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signingKeyFromPem, signJwt } from "clerk-emulator/testing";
import { armFault, backendApi, newTeam } from "../support/emulator-api";
import { keysModeEnv, keysModeOn, ROOT, type RunningServer, startServer } from "../support/server";
import { browserCookies, emulatorSession, emulatorToken } from "../support/session";

// Log lines are one JSON object each, whatever a request carries
// (docs/security.md, "Logs"): CR, LF and other control characters in paths,
// headers and token fields stay inside a string field, and never start a
// line of their own. A keys-mode server (production's) is sent hostile
// requests, with a local-mode server standing in for Clerk; then every line
// it wrote, to stdout and stderr, from start to exit, is read back.

/** What an attacker would like a log reader to take for a line of the server's own. */
const FORGED = '{"event":"forged"}';
/** Where a line reader may end a line: LF, CR, and also (Python's splitlines, Unicode) these. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

let clerk: RunningServer;
let app: RunningServer;
let appClosed: Promise<unknown>;

beforeAll(async () => {
  clerk = await startServer({ LOG_LEVEL: "silent" });
  const { env, jwtKey } = keysModeOn(clerk, "log-lines-session-secret-0123456789abcdefgh");
  app = await startServer({ ...keysModeEnv(jwtKey), ...env });
  // 'close' comes once the server's stdout and stderr are read to their end.
  appClosed = once(app.child, "close");
});

afterAll(async () => {
  for (const server of [app, clerk]) if (server && server.child.exitCode === null) await server.stop();
});

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(app.origin + path, {
    headers: { Accept: "text/html", "Sec-Fetch-Dest": "document", ...headers },
    redirect: "manual",
  });

/** Sends `head` (bytes as they are: latin1) on a socket of its own; resolves with the answer's status once the server closes it. */
function rawRequest(head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(app.port, "127.0.0.1", () => socket.write(Buffer.from(head, "latin1")));
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

/** `text` as UTF-8 bytes, spelled as latin1 characters (what a raw socket sends of it). */
const utf8Bytes = (text: string) => Buffer.from(text, "utf8").toString("latin1");

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("a keys-mode server sent hostile requests", () => {
  it("paths and queries with encoded CR, LF, NUL, ESC, line separators and bad encodings", async () => {
    const paths = [
      `/orgs/x%0d%0a${encodeURIComponent(FORGED)}`,
      `/x%00y%1b[31m%0d%0a${encodeURIComponent(FORGED)}`,
      `/?q=%0d%0a${encodeURIComponent(FORGED)}&next=%E2%80%A8${encodeURIComponent(FORGED)}`,
      // Files: the static handlers decode the path to look on disk.
      `/build/%0d%0a${encodeURIComponent(FORGED)}`,
      `/build/%C2%85${encodeURIComponent(FORGED)}.js`,
      `/_clerk-js/%E2%80%A8${encodeURIComponent(FORGED)}.js`,
      `/favicon%0a${encodeURIComponent(FORGED)}.ico`,
      // Not even percent-encoding: Express's router gives up on it.
      `/%E0%A4%A%0a${encodeURIComponent(FORGED)}`,
      // Remix's data requests, malformed.
      `/orgs.data?_routes=%0a${encodeURIComponent(FORGED)}`,
      `/orgs/%0a${encodeURIComponent(FORGED)}.data`,
      `/__manifest?p=%0a${encodeURIComponent(FORGED)}&version=x`,
    ];
    for (const path of paths) {
      const res = await page(path);
      await res.arrayBuffer();
      expect(res.status, path).toBeLessThan(500);
    }
  });

  it("raw bytes in the request target and headers: what Node's parser accepts, and what it refuses with a 400", async () => {
    const request = (target: string, headers: string) =>
      rawRequest(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`);
    // Tab and obs-text (0x80-0xff) are allowed in header values; a forwarded address is logged as `client`.
    expect(await request("/orgs", `X-Forwarded-For: 203.0.113.7\x85${FORGED}\r\n`)).toBe(302);
    expect(await request("/orgs", `X-Forwarded-For: ${utf8Bytes(`203.0.113.8\u2028${FORGED}`)}\r\n`)).toBe(302);
    expect(
      await request(
        "/",
        `User-Agent: x\t\x85${FORGED}\r\nReferer: ${utf8Bytes(`https://example.com/\u2028${FORGED}`)}\r\n` +
          `X-Request-Id: abcdefgh\x85${FORGED}\r\n`,
      ),
    ).toBe(200);
    // Newline-encoded content in the request id: not a sane id, so a new one is made.
    expect(await request("/", `X-Request-Id: abcdefgh%0d%0a${encodeURIComponent(FORGED)}\r\n`)).toBe(200);
    expect(await request("/", `X-Request-Id: abcdefgh\\n${FORGED}\r\n`)).toBe(200);
    // Node refuses these itself.
    expect(await request("/a\x85b", "")).toBe(400);
    expect(await request(`/a\x1b${FORGED}`, "")).toBe(400);
    expect(await request("/", `X-Bad: a\rb${FORGED}\r\n`)).toBe(400);
    expect(await request("/", `X-Bad: a\x00b${FORGED}\r\n`)).toBe(400);
    expect(await rawRequest(`GET /a\r\n${FORGED} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toBe(400);
    expect(await request("/", `X-Bad: a\n${FORGED}\r\n`)).toBe(400);
  });

  it("session and handshake tokens whose fields carry a forged line", async () => {
    const injected = `\n${FORGED}`;
    // Shaped like Clerk's, signed by no key of Clerk's: the server drops them unread.
    const forged = [
      part({ alg: "RS256", typ: "JWT", kid: `ins_emulator${injected}` }),
      part({ sub: `user_forged${injected}`, sid: `sess_forged${injected}`, exp: 4_102_444_800, azp: injected }),
      "c2ln",
    ].join(".");
    // Signed by Clerk's key (the emulator's), with the same text in its claims.
    const session = await emulatorSession(clerk.origin, "ada@example.com");
    const iat = Math.floor(Date.now() / 1000);
    const signed = emulatorToken(
      clerk.dataDir,
      session,
      { iat, exp: iat + 60 },
      {
        claims: { azp: `${app.origin}${injected}` },
        org: { id: `org_signed${injected}`, slug: null, role: "org:member" },
      },
    );
    const key = signingKeyFromPem(readFileSync(join(clerk.dataDir, "clerk-emulator-key.pem"), "utf8"), injected);
    const signedOddKid = signJwt(key, { sub: session.userId, sid: session.sessionId, iat, exp: iat + 60 });
    for (const token of [forged, signed, signedOddKid]) {
      for (const res of [
        await page("/orgs", { Cookie: `__client_uat=${iat}; __session=${token}` }),
        await page(`/orgs?__clerk_handshake=${token}`),
        await page("/orgs", { Cookie: `__clerk_handshake=${token}` }),
      ]) {
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }
    }
    // Clerk's SDK asks its Backend API for a handshake nonce's payload, and prints its failure.
    const nonce = await page(`/orgs?__clerk_handshake_nonce=x%0a${encodeURIComponent(FORGED)}`);
    expect(nonce.status).toBeLessThan(500);
    // …and prints a redirect loop it sees in a cookie's count.
    const loop = await page("/", { Cookie: `__client_uat=${iat}; __clerk_redirect_count=3` });
    expect(loop.status).toBeLessThan(500);
    expect(app.output()).not.toContain(forged);
    expect(app.output()).not.toContain("user_forged");
  });

  it("credentials a request carries (handshake nonces and tokens, dev-browser tokens, session and client cookies) reach no log line", async () => {
    const session = await emulatorSession(clerk.origin, "grace@example.com");
    const exp = Math.floor(Date.now() / 1000) - 60;
    // An expired token: the request goes through the handshake, the path Clerk's SDK logs most on.
    const token = emulatorToken(clerk.dataDir, session, { iat: exp - 60, exp });
    const nonce = "hsn_neverlogged00000000000000";
    const devBrowser = "dvb_neverlogged0000000000";
    for (const query of [
      `__clerk_handshake_nonce=${nonce}`,
      `__clerk_handshake=${token}`,
      `__clerk_db_jwt=${devBrowser}`,
      `__clerk_handshake_nonce=${nonce}&__handshake_state=AAAAAAAAAAAAAAAAAAAAAA`,
    ]) {
      for (const path of [`/orgs?${query}`, `/orgs.data?${query}`]) {
        const res = await page(path, { Cookie: browserCookies(session, token, exp - 120) });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }
    }
    const post = await fetch(`${app.origin}/resources/sign-out`, {
      method: "POST",
      headers: {
        Cookie: `${browserCookies(session, token, exp - 120)}; __clerk_handshake_nonce=${nonce}`,
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: app.origin,
      },
      body: "",
      redirect: "manual",
    });
    expect(post.status).toBeLessThan(500);
    for (const secret of [nonce, devBrowser, token, token.split(".")[2]!, session.clientId])
      expect(app.output()).not.toContain(secret);
  });

  it("errors in an action and a loader: each a 500 whose error is logged", async () => {
    // A team of its own: no membership of its admin's is in the server's caches yet.
    const team = await newTeam(backendApi(clerk.origin, clerk.dataDir));
    const session = await emulatorSession(clerk.origin, team.admin.email);
    const cookie = browserCookies(session, session.sessionToken);
    await armFault(clerk.origin, {
      endpoint: "bapi GET /v1/users/:id/organization_memberships",
      mode: "error",
      status: 422,
      times: 2,
      pathIncludes: session.userId,
    });
    const action = await fetch(`${app.origin}/orgs/${team.org.slug}/members`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "invite", emailAddress: `x@example.com\r\n${FORGED}`, role: "org:member" }),
      redirect: "manual",
    });
    expect(action.status).toBe(500);
    const loader = await page(`/orgs/${team.org.slug}/members?q=%0d%0a${encodeURIComponent(FORGED)}`, {
      Cookie: cookie,
    });
    expect(loader.status).toBe(500);
  });

  it("wrote only JSON objects, one a line, from start to exit: the forged lines only inside string fields, stacks as fields", async () => {
    expect(await app.stop()).toBe(0);
    await appClosed;
    const output = app.output();
    const lines = output.split(LINE_BREAKS).filter((line) => line.trim() !== "");
    const notObjects = lines.filter((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return typeof value !== "object" || value === null || Array.isArray(value);
      } catch {
        return true;
      }
    });
    expect(notObjects).toEqual([]);
    expect(lines.filter((line) => line.startsWith(FORGED.slice(0, -1)))).toEqual([]);
    // No control character is left raw, though JSON.stringify would leave U+007F-U+009F.
    expect(lines.filter((line) => /[\u0000-\u001f\u007f-\u009f]/.test(line))).toEqual([]);
    // What was injected is there, as text inside a field: the requests did reach the logs.
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const strings = records.flatMap((record) =>
      Object.values(record).filter((v): v is string => typeof v === "string"),
    );
    expect(
      records.some(
        (record) => record.event === "request" && String(record.path).includes(`%0d%0a${encodeURIComponent(FORGED)}`),
      ),
    ).toBe(true);
    // A missing file is the client's doing: answered 404, not an error with a stack for anyone to fill the log with.
    expect(strings.filter((value) => value.includes("ENOENT"))).toEqual([]);
    expect(strings.some((value) => value.includes(`\u0085${FORGED}`))).toBe(true);
    // Stack traces are one field of their line.
    expect(records.some((record) => typeof record.stack === "string" && /\n\s+at /.test(record.stack))).toBe(true);
    expect(records).toContainEqual(
      expect.objectContaining({ event: "info", message: expect.stringMatching(/^Teamwork listening on http:/) }),
    );
  });
});

describe("the JSON console, outside requests", () => {
  it("writes Node's warnings, console calls, direct writes and an uncaught exception as JSON lines, then exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "teamwork-json-console-"));
    try {
      const entry = join(dir, "entry.ts");
      writeFileSync(
        entry,
        `import { installJsonConsole } from ${JSON.stringify(join(ROOT, "server", "json-console.ts"))};
installJsonConsole();
const forged = ${JSON.stringify(`\n${FORGED}`)};
process.emitWarning("a warning" + forged, "TeamworkTestWarning");
process.emitWarning("a warning turned off", "TeamworkOffWarning");
console.log("a log" + forged, { nested: forged });
console.warn("multi\\nline" + forged);
console.error("failed:", new Error("an error" + forged));
console.trace("a trace" + forged);
process.stdout.write("a direct write" + forged + "\\n");
process.stderr.write(Buffer.from("a buffer" + forged));
setTimeout(() => { throw new TypeError("uncaught" + forged); });
`,
      );
      const bundle = join(dir, "entry.mjs");
      await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: "node", format: "esm" });
      const run = spawnSync(process.execPath, ["--disable-warning=TeamworkOffWarning", bundle], {
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(run.status).toBe(1);
      const lines = `${run.stdout}${run.stderr}`.split(LINE_BREAKS).filter((line) => line.trim() !== "");
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.map((r) => [r.event, r.level ?? null])).toEqual(
        expect.arrayContaining([
          ["warning", null],
          ["console", "info"],
          ["console", "warn"],
          ["console", "error"],
          ["console", "debug"],
          ["output", "info"],
          ["output", "error"],
          ["uncaught_exception", "fatal"],
        ]),
      );
      expect(records).toHaveLength(8);
      expect(records.find((r) => r.event === "warning")).toMatchObject({
        component: "node",
        error: "TeamworkTestWarning",
        message: `a warning\n${FORGED}`,
      });
      expect(records.find((r) => r.level === "error" && r.event === "console")).toMatchObject({
        message: `failed: Error: an error\n${FORGED}`,
        error: "Error",
        stack: expect.stringMatching(/^Error: an error\n\{"event":"forged"\}\n\s+at /),
      });
      expect(records.find((r) => r.event === "uncaught_exception")).toMatchObject({
        error: "TypeError",
        message: `uncaught\n${FORGED}`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
