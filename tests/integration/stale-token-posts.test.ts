import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningKey } from "clerk-emulator/testing";
import { armFault, backendApi, emulatorCalls } from "../support/emulator-api";
import { scrapeMetrics } from "../support/metrics";
import { freePort, startServer, type RunningServer } from "../support/server";
import { browserCookies, documentBrowser, emulatorSession, emulatorToken } from "../support/session";

// Forms sent with a session token that is stale for a timing reason: the
// server confirms the session with Clerk (one Backend API read) and runs the
// action, or sends the person to sign-in; a POST never goes to the handshake.
// Tokens are made with the emulator's key, so no test waits for one to expire.
let server: RunningServer;
let metricsPort: number;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({ METRICS_PORT: String(metricsPort) });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const now = () => Math.floor(Date.now() / 1000);
const SESSION_CHECK = "bapi GET /v1/sessions/:id";
const CREATE_ORG = "bapi POST /v1/organizations";
const REVOKE = "bapi POST /v1/sessions/:id/revoke";

/** How many calls each endpoint got while `work` ran. */
async function callsDuring<T>(work: () => Promise<T>): Promise<{ result: T; calls: (endpoint: string) => number }> {
  const before = await emulatorCalls(server.origin);
  const result = await work();
  const after = await emulatorCalls(server.origin);
  return { result, calls: (endpoint) => (after[endpoint] ?? 0) - (before[endpoint] ?? 0) };
}

let counter = 0;
const uniqueName = () => `Stale ${Date.now().toString(36)}${(counter += 1)}`;

/** A form's POST as a browser without JavaScript sends it (a document). */
function postDocument(path: string, cookie: string, fields: Record<string, string> = {}) {
  return fetch(server.origin + path, {
    method: "POST",
    headers: {
      Cookie: cookie,
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.origin,
      Accept: "text/html",
      "Sec-Fetch-Dest": "document",
      "Sec-Fetch-Mode": "navigate",
    },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

/** The create-organization form, without JavaScript. */
const createOrgDocument = (cookie: string, name = uniqueName()) =>
  postDocument("/orgs/new", cookie, { name, slug: "" });

/** An expired token (a minute ago) for a session, with the cookies of its browser. */
async function expiredBrowser(email: string, { expiredSecondsAgo = 60 } = {}) {
  const session = await emulatorSession(server.origin, email);
  const exp = now() - expiredSecondsAgo;
  const token = emulatorToken(server.dataDir, session, { iat: exp - 60, exp });
  return { session, cookie: browserCookies(session, token, exp - 120) };
}

/** Clerk answers `endpoint` with a 503 for this session, through every retry. */
const clerkFailsFor = (endpoint: string, sessionId: string) =>
  armFault(server.origin, { endpoint, mode: "error", status: 503, times: 4, pathIncludes: sessionId });

/** A session's browser whose expired token is signed with some other key. */
async function badlySignedBrowser(email: string) {
  const session = await emulatorSession(server.origin, email);
  const exp = now() - 60;
  const token = emulatorToken(server.dataDir, session, { iat: exp - 60, exp }, { key: generateSigningKey() });
  return { session, cookie: browserCookies(session, token, exp - 120) };
}

const sessionStatus = async (sessionId: string) =>
  ((await bapi("GET", `/v1/sessions/${sessionId}`)).body as { status: string }).status;

describe("a form sent with a stale session token", () => {
  it.each([
    {
      reason: "session-token-expired",
      times: () => ({ iat: now() - 120, exp: now() - 60 }),
      clientUat: () => now() - 180,
    },
    {
      reason: "session-token-nbf",
      times: () => ({ iat: now(), nbf: now() + 60, exp: now() + 120 }),
      clientUat: () => now() - 60,
    },
    {
      reason: "session-token-iat-before-client-uat",
      times: () => ({ iat: now() - 10, exp: now() + 50 }),
      clientUat: () => now(),
    },
  ])("($reason) runs once the session is confirmed with one Backend API call", async ({ times, clientUat }) => {
    const session = await emulatorSession(server.origin, "grace@example.com");
    const cookie = browserCookies(session, emulatorToken(server.dataDir, session, times()), clientUat());
    const { result: res, calls } = await callsDuring(() => createOrgDocument(cookie));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/orgs\/stale-/);
    expect(calls(SESSION_CHECK)).toBe(1);
    expect(calls(CREATE_ORG)).toBe(1);
  });

  it("a current token asks Clerk nothing to authorize the form", async () => {
    const session = await emulatorSession(server.origin, "grace@example.com");
    const token = emulatorToken(server.dataDir, session, { iat: now() - 5, exp: now() + 55 });
    const { result: res, calls } = await callsDuring(() =>
      createOrgDocument(browserCookies(session, token, now() - 10)),
    );
    expect(res.status).toBe(303);
    expect(calls(SESSION_CHECK)).toBe(0);
    expect(calls(CREATE_ORG)).toBe(1);
  });

  it("a page's data request (JavaScript on) runs too, and the answer is the action's", async () => {
    const { cookie } = await expiredBrowser("grace@example.com");
    const { result: res, calls } = await callsDuring(() =>
      fetch(`${server.origin}/orgs/new.data`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin },
        body: new URLSearchParams({ name: uniqueName(), slug: "" }).toString(),
        redirect: "manual",
      }),
    );
    expect(res.status).toBe(202); // single fetch's redirect
    expect(await res.text()).toMatch(/\/orgs\/stale-/);
    expect(calls(CREATE_ORG)).toBe(1);
  });

  it("the page rendered after the form checks the role with Clerk, not with the stale token's claims", async () => {
    // Ada is an admin of Analytical Engines; her expired token says member (claims minutes old
    // authorize nothing): the invite section is an admin's, so it shows only if Clerk's word was used.
    const session = await emulatorSession(server.origin, "ada@example.com", "org_seed_engines");
    const exp = now() - 30;
    const token = emulatorToken(
      server.dataDir,
      session,
      { iat: exp - 60, exp },
      { org: { id: "org_seed_engines", slug: "analytical-engines", role: "org:member" } },
    );
    const email = `stale.${Date.now()}@example.com`;
    const { result: res, calls } = await callsDuring(() =>
      postDocument("/orgs/analytical-engines/members", browserCookies(session, token, exp - 120), {
        emailAddress: email,
        role: "org:member",
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`Invitation made for ${email}`);
    expect(calls("bapi POST /v1/organizations/:id/invitations")).toBe(1);
    expect(calls(SESSION_CHECK)).toBe(1);
  });

  it("a form refused before its action checks the session is answered as it is, not sent to the handshake", async () => {
    // The page's loaders run after the action with a GET copy of the POST: the browser sent a POST all the same.
    const { cookie } = await expiredBrowser("grace@example.com");
    const res = await postDocument("/resources/theme", cookie, { theme: "purple" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Account menu for");
  });

  it("never sends a POST to the handshake, and the GET after it renews the cookies there", async () => {
    const { cookie } = await expiredBrowser("grace@example.com");
    const res = await createOrgDocument(cookie);
    expect(res.status).toBe(303);
    const next = await fetch(server.origin + res.headers.get("location")!, {
      headers: { Cookie: cookie, Accept: "text/html", "Sec-Fetch-Dest": "document" },
      redirect: "manual",
    });
    expect(next.status).toBe(307);
    expect(new URL(next.headers.get("location")!).pathname).toBe("/__clerk/v1/client/handshake");
  });
});

describe("nothing is written for a session that is no longer active, or a token that is not its person's", () => {
  /**
   * Posts the form and checks that the person is sent to sign-in and back, with nothing created, and
   * `sessionChecks` calls to confirm the session (at most that many, where a webhook may have said first).
   */
  async function expectRefused(cookie: string, sessionChecks: number, { orFewer = false } = {}) {
    const { result: res, calls } = await callsDuring(() => createOrgDocument(cookie));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/sign-in?redirect_url=%2Forgs%2Fnew");
    expect(calls(CREATE_ORG)).toBe(0);
    if (orFewer) expect(calls(SESSION_CHECK)).toBeLessThanOrEqual(sessionChecks);
    else expect(calls(SESSION_CHECK)).toBe(sessionChecks);
  }

  it("revoked through the Backend API", async () => {
    const { session, cookie } = await expiredBrowser("grace@example.com");
    expect((await bapi("POST", `/v1/sessions/${session.sessionId}/revoke`)).status).toBe(200);
    // One check, or none once the emulator's session.revoked webhook has reached the app (it says the session is gone).
    await expectRefused(cookie, 1, { orFewer: true });
  });

  it("removed by the person on another device", async () => {
    const { session, cookie } = await expiredBrowser("grace@example.com");
    const removed = await fetch(`${server.origin}/__clerk/v1/client/sessions/${session.sessionId}/remove`, {
      method: "POST",
      headers: { Cookie: `__client=${session.clientId}` },
    });
    expect(removed.status).toBe(200);
    expect(await sessionStatus(session.sessionId)).toBe("removed");
    // One check, or none once the emulator's session.removed webhook has reached the app.
    await expectRefused(cookie, 1, { orFewer: true });
  });

  it("a token naming another person's session", async () => {
    const ada = await emulatorSession(server.origin, "ada@example.com");
    const grace = await emulatorSession(server.origin, "grace@example.com");
    const exp = now() - 60;
    const forged = emulatorToken(
      server.dataDir,
      { sessionId: ada.sessionId, userId: grace.userId },
      { iat: exp - 60, exp },
    );
    await expectRefused(browserCookies(grace, forged, exp - 120), 1);
  });

  it("a token whose signature does not verify", async () => {
    const { cookie } = await badlySignedBrowser("grace@example.com");
    await expectRefused(cookie, 0);
  });

  it("a token that expired more than 10 minutes ago, its session still active", async () => {
    const { session, cookie } = await expiredBrowser("grace@example.com", { expiredSecondsAgo: 11 * 60 });
    await expectRefused(cookie, 0);
    expect(await sessionStatus(session.sessionId)).toBe("active");
  });

  it("when Clerk cannot say, the form is answered 503 and nothing is written", async () => {
    const { session, cookie } = await expiredBrowser("grace@example.com");
    await clerkFailsFor(SESSION_CHECK, session.sessionId);
    const { result: res, calls } = await callsDuring(() => createOrgDocument(cookie));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBeTruthy();
    expect(calls(CREATE_ORG)).toBe(0);
    expect(calls(SESSION_CHECK)).toBe(4);
  });
});

describe("sign-out after the token expired", () => {
  const signOut = (cookie: string, path = "/resources/sign-out") => postDocument(path, cookie);

  it("without JavaScript: the session is revoked in Clerk and the person lands on the home page, signed out", async () => {
    const { session, cookie } = await expiredBrowser("alan@example.com");
    const { result: res, calls } = await callsDuring(() => signOut(cookie));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect(res.headers.getSetCookie().join("\n")).toMatch(/__client_uat=0;/);
    expect(calls(REVOKE)).toBe(1);
    expect(calls(SESSION_CHECK)).toBe(0);
    expect(await sessionStatus(session.sessionId)).toBe("revoked");
  });

  it("with JavaScript (a data request), the same", async () => {
    const { session, cookie } = await expiredBrowser("alan@example.com", { expiredSecondsAgo: 9 * 60 });
    const res = await signOut(cookie, "/resources/sign-out.data");
    expect(res.status).toBe(202);
    expect(await sessionStatus(session.sessionId)).toBe("revoked");
  });

  /** A signed-out browser's next page after a handshake, as clerk-js or Clerk's SDK would start one: where it lands. */
  async function afterHandshake(browser: ReturnType<typeof documentBrowser>) {
    const back = encodeURIComponent(`${server.origin}/orgs`);
    const { res, hops } = await browser.navigate(`/__clerk/v1/client/handshake?redirect_url=${back}&format=nonce`);
    return { status: res.status, landed: hops.at(-1)!, page: await res.text() };
  }

  it("without JavaScript, a token 15 minutes old: the browser's Clerk client proves its session through the handshake, which ends it; that browser stays signed out", async () => {
    const { session, cookie } = await expiredBrowser("alan@example.com", { expiredSecondsAgo: 15 * 60 });
    const browser = documentBrowser(server.origin, cookie);
    const { result, calls } = await callsDuring(() => browser.navigate("/resources/sign-out", { method: "POST" }));
    // Its next handshake (the next page's), with the same Clerk client cookie, does not sign it back in.
    const next = await afterHandshake(browser);
    expect(next.landed).toBe("GET /sign-in?redirect_url=%2Forgs 200");
    expect(next.page).not.toContain("Account menu for");
    // The POST ends nothing (an old token may be an old log's): it sends the browser through the
    // handshake, whose fresh token of the same session ends it; then home.
    expect(result.hops[0]).toBe("POST /resources/sign-out 303");
    expect(result.hops.some((hop) => hop.startsWith("GET /__clerk/v1/client/handshake?"))).toBe(true);
    expect(result.hops.at(-1)).toBe("GET / 200");
    expect(calls(REVOKE)).toBe(1);
    expect(await sessionStatus(session.sessionId)).toBe("revoked");
    expect(browser.cookies().map((c) => c.name)).not.toContain("__session");
    expect(browser.cookies().map((c) => c.name)).not.toContain("__sign_out");
  });

  it("a token that expired an hour ago (an old log's) ends nothing in Clerk from another browser; that browser is signed out", async () => {
    const { session, cookie } = await expiredBrowser("alan@example.com", { expiredSecondsAgo: 3600 });
    // Someone else's browser: the old token, but not the Clerk client cookie of the session's browser.
    const stranger = documentBrowser(server.origin, cookie.replace(/; __client=[^;]*/, ""));
    const { result, calls } = await callsDuring(() => stranger.navigate("/resources/sign-out", { method: "POST" }));
    expect(result.hops.at(-1)).toBe("GET / 200");
    expect(calls(REVOKE)).toBe(0);
    expect(await sessionStatus(session.sessionId)).toBe("active");
    expect(stranger.cookies().find((c) => c.name === "__client_uat")?.value).toBe("0");
  });

  it("a continuation ends only the session it names, with a current token of that session", async () => {
    const alan = await expiredBrowser("alan@example.com", { expiredSecondsAgo: 15 * 60 });
    const posted = await postDocument("/resources/sign-out", alan.cookie);
    expect([posted.status, posted.headers.get("location")]).toEqual([303, "/resources/sign-out"]);
    const continuation = /^__sign_out=[^;]+/.exec(posted.headers.getSetCookie().join("\n"))![0];
    expect(posted.headers.getSetCookie().join("\n")).not.toMatch(/__client_uat=0/);
    const page = (cookie: string) =>
      fetch(`${server.origin}/resources/sign-out`, {
        headers: { Cookie: cookie, Accept: "text/html", "Sec-Fetch-Dest": "document" },
        redirect: "manual",
      });

    // Sent as a data request (JavaScript on, clerk-js not there yet), the browser loads the GET as a document.
    const data = await postDocument("/resources/sign-out.data", alan.cookie);
    expect(data.headers.get("x-remix-reload-document")).toBe("true");
    expect(await data.text()).toContain('"redirect","/resources/sign-out"');
    expect(data.headers.getSetCookie().join("\n")).toMatch(/^__sign_out=/);

    // Another session's browser, given alan's continuation: its own session goes on, and it sees the page.
    const grace = await emulatorSession(server.origin, "grace@example.com");
    const graceToken = emulatorToken(server.dataDir, grace, { iat: now() - 5, exp: now() + 55 });
    const other = await page(`${browserCookies(grace, graceToken, now() - 10)}; ${continuation}`);
    expect(other.status).toBe(200);
    expect(other.headers.getSetCookie().join("\n")).toMatch(/__sign_out=;/);
    expect(await sessionStatus(grace.sessionId)).toBe("active");

    // A continuation whose signature does not verify (its session changed) is no continuation.
    const alanToken = emulatorToken(server.dataDir, alan.session, { iat: now() - 5, exp: now() + 55 });
    const current = browserCookies(alan.session, alanToken, now() - 10);
    const unsigned = `__sign_out=${encodeURIComponent(Buffer.from(JSON.stringify({ purpose: "sign-out", sessionId: alan.session.sessionId, expiresAt: Date.now() + 60_000 })).toString("base64"))}`;
    expect((await page(`${current}; ${unsigned}`)).status).toBe(200);
    expect(await sessionStatus(alan.session.sessionId)).toBe("active");

    // Its own session's current token, with the continuation: ended, and home.
    const ended = await page(`${current}; ${continuation}`);
    expect([ended.status, ended.headers.get("location")]).toEqual([303, "/"]);
    expect(ended.headers.getSetCookie().join("\n")).toMatch(/__client_uat=0;/);
    expect(await sessionStatus(alan.session.sessionId)).toBe("revoked");
  });

  it("an unsigned token ends nothing", async () => {
    const { session, cookie } = await badlySignedBrowser("alan@example.com");
    const { result: res, calls } = await callsDuring(() => signOut(cookie));
    expect(res.status).toBe(303);
    expect(calls(REVOKE)).toBe(0);
    expect(await sessionStatus(session.sessionId)).toBe("active");
  });

  it("when Clerk cannot revoke it, the person is told and stays signed in", async () => {
    const { session, cookie } = await expiredBrowser("alan@example.com");
    await clerkFailsFor(REVOKE, session.sessionId);
    const res = await signOut(cookie);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBeTruthy();
    const page = await res.text();
    expect(page).toContain("You are still signed in");
    expect(page).toContain("Account menu for"); // (signed in; the test token carries no name)
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/__client_uat=0/);
    expect(await sessionStatus(session.sessionId)).toBe("active");
  });
});

describe("the emulator's handshake", () => {
  it("answers a POST as Clerk's Frontend API does: 405, GET only, in Clerk's error envelope", async () => {
    const { session, cookie } = await expiredBrowser("grace@example.com");
    const target = `${server.origin}/orgs/new?__clerk_hs_reason=session-token-expired-refresh-non-eligible-non-get`;
    const res = await fetch(
      `${server.origin}/__clerk/v1/client/handshake?redirect_url=${encodeURIComponent(target)}&format=nonce`,
      { method: "POST", headers: { Cookie: cookie }, redirect: "manual" },
    );
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("method_not_allowed");
    // Nothing was minted for the client: its session goes on as it was.
    expect(await sessionStatus(session.sessionId)).toBe("active");
  });
});

describe("what operators see", () => {
  it("each rescue is counted by outcome and logged with its reason and outcome, without ids", async () => {
    const metrics = await scrapeMetrics(metricsPort);
    for (const outcome of ["ran", "refused", "unverified", "unavailable", "signed_out"]) {
      expect(metrics.get(`stale_token_posts_total{outcome="${outcome}"}`), outcome).toBeGreaterThan(0);
    }
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"stale_token_post"'));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const { event, time, reason, outcome, ...rest } = JSON.parse(line) as Record<string, string>;
      expect({ event, reason: typeof reason, outcome: typeof outcome, time: typeof time }).toEqual({
        event: "stale_token_post",
        reason: "string",
        outcome: "string",
        time: "string",
      });
      expect(rest).toEqual({});
      expect(line).not.toMatch(/sess_|user_|org_|@/);
    }
  });
});
