import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorCalls } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import {
  browserCookies,
  emulatorCookie,
  emulatorSession,
  emulatorToken,
  sessionCookieHeader,
  startHandshake,
} from "../support/session";

// Local mode: no CLERK_JWT_KEY, so @clerk/remix fetches the emulator's JWKS
// through CLERK_API_URL, exactly as it would fetch Clerk's.
let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const page = (path: string, cookie: string) =>
  fetch(server.origin + path, {
    headers: { Cookie: cookie, Accept: "text/html", "Sec-Fetch-Dest": "document" },
    redirect: "manual",
  });

const calls = () => emulatorCalls(server.origin);

describe("server-side auth against the emulator", () => {
  it("verifies an emulator-issued session through the emulator's JWKS", async () => {
    const res = await page("/orgs", await emulatorCookie(server.origin, "ada@example.com"));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('aria-label="Account menu for Ada Lovelace"');
    expect((await calls())["bapi GET /v1/jwks"]).toBeGreaterThanOrEqual(1);
  });

  /** Grace's cookies, signed in five minutes ago, with a session token that expired a minute ago. */
  async function expiredCookies() {
    const s = await emulatorSession(server.origin, "grace@example.com");
    return browserCookies(
      s,
      emulatorToken(server.dataDir, s, { iat: s.clientUat - 120, exp: s.clientUat - 60 }),
      s.clientUat - 300,
    );
  }

  it("an expired __session on a document request goes through the handshake and comes back signed in", async () => {
    const cookies = await expiredCookies();

    // 1. The app sends the browser to the Frontend API's handshake.
    const first = await page("/user", cookies);
    expect(first.status).toBe(307);
    const handshake = new URL(first.headers.get("location")!, server.origin);
    expect(handshake.pathname).toBe("/__clerk/v1/client/handshake");
    // Bound to this browser: a state in the URL it comes back to, and the state's cookie.
    const state = new URL(handshake.searchParams.get("redirect_url")!).searchParams.get("__handshake_state");
    const stateCookie = first.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!)
      .find((c) => c.startsWith(`__hs_${state}=`));
    expect(stateCookie).toBeTruthy();

    // 2. The emulator mints a fresh token for the client and sends it back with a nonce.
    const second = await fetch(handshake, { headers: { Cookie: cookies }, redirect: "manual" });
    expect(second.status).toBe(307);
    const back = new URL(second.headers.get("location")!);
    expect(back.pathname).toBe("/user");
    expect(back.searchParams.get("__clerk_handshake_nonce")).toBeTruthy();

    // 3. The app trades the nonce for cookies through the Backend API, and sets them while it
    //    takes the handshake's parameters out of the address (clerk-js may not be there to).
    const third = await page(back.pathname + back.search, `${cookies}; ${stateCookie}`);
    expect(third.status).toBe(307);
    expect(third.headers.get("location")).toBe("/user");
    const setCookies = third.headers.getSetCookie();
    expect(setCookies.join("\n")).toMatch(/__session=eyJ/);
    // The state's cookie is spent.
    expect(setCookies).toContainEqual(expect.stringMatching(new RegExp(`^__hs_${state}=;.*Max-Age=0`)));

    // 4. Signed in with the cookies it set.
    const fourth = await page("/user", setCookies.map((cookie) => cookie.split(";")[0]).join("; "));
    expect(fourth.status).toBe(200);
    expect(await fourth.text()).toContain("Account menu for Grace Hopper");
  });

  /** Grace's handshake, started in her browser (expired cookies): the URL her browser comes back to, with Clerk's nonce. */
  async function gracesReturn() {
    const cookies = await expiredCookies();
    const started = await startHandshake(server.origin, "/orgs", { cookie: cookies });
    const fromClerk = await fetch(started.handshake, { headers: { Cookie: cookies }, redirect: "manual" });
    const back = new URL(fromClerk.headers.get("location")!);
    return { ...started, cookies, back: back.pathname + back.search };
  }

  it("a handshake's return handed to another browser signs no one in, at no cost to Clerk (login CSRF)", async () => {
    const grace = await gracesReturn();
    const handshakePayloads = async () => (await calls())["bapi GET /v1/clients/handshake_payload"] ?? 0;
    const before = await handshakePayloads();
    // A signed-out browser, and Ada signed in, each sent Grace's return URL (a link from her).
    const ada = await emulatorCookie(server.origin, "ada@example.com");
    for (const victim of ["", ada]) {
      const res = await page(grace.back, victim);
      expect(res.status).toBe(307);
      expect(res.headers.get("location")).toBe("/orgs");
      expect(res.headers.getSetCookie().join("\n")).not.toMatch(/__session=eyJ/);
    }
    expect(await handshakePayloads()).toBe(before);
    const asAda = await page("/orgs", ada);
    expect(await asAda.text()).toContain("Account menu for Ada Lovelace");
    // Grace's own browser, with the state's cookie: signed in, once. The same return again is not honoured.
    const own = await page(grace.back, `${grace.cookies}; ${grace.stateCookie}`);
    expect(own.headers.getSetCookie().join("\n")).toMatch(/__session=eyJ/);
    const again = await page(grace.back, `${grace.cookies}; ${grace.stateCookie}`);
    expect(again.headers.getSetCookie().join("\n")).not.toMatch(/__session=eyJ/);
    expect(await handshakePayloads()).toBe(before + 1);
  });

  it("a state cookie of another handshake, or a forged one, does not bind a return", async () => {
    const grace = await gracesReturn();
    const other = await startHandshake(server.origin, "/orgs");
    const forged = `__hs_${grace.state}=${encodeURIComponent(Buffer.from('{"purpose":"handshake","expiresAt":9999999999999}').toString("base64"))}`;
    for (const cookie of [other.stateCookie, forged]) {
      const res = await page(grace.back, `${grace.cookies}; ${cookie}`);
      expect(res.status).toBe(307);
      expect(res.headers.getSetCookie().join("\n")).not.toMatch(/__session=eyJ/);
    }
  });

  /**
   * The redirect in a single-fetch answer (Remix encodes it with turbo-stream:
   * a flat array whose objects name their keys and values by index).
   */
  async function singleFetchRedirect(res: Response) {
    const flat = JSON.parse((await res.text()).split("\n")[0]!) as unknown[];
    // (A loader's redirect comes tagged, an action's bare: the first plain object is the redirect.)
    const fields = flat.find((item) => item !== null && typeof item === "object" && !Array.isArray(item)) as Record<
      string,
      number
    >;
    return Object.fromEntries(Object.entries(fields).map(([key, value]) => [flat[Number(key.slice(1))], flat[value]]));
  }

  it("an expired __session on a page's data request has the browser load the page as a document (and so the handshake)", async () => {
    const cookies = await expiredCookies();
    const res = await fetch(`${server.origin}/user.data?_routes=routes%2Fuser.%24&tab=1`, {
      headers: { Cookie: cookies },
      redirect: "manual",
    });
    expect(res.status).toBe(202);
    expect(await singleFetchRedirect(res)).toMatchObject({ redirect: "/user?tab=1", reload: true });
  });

  it("signing out without JavaScript revokes the session and clears the cookies", async () => {
    const s = await emulatorSession(server.origin, "alan@example.com");
    const res = await postForm(server, "/resources/sign-out", {}, sessionCookieHeader(s.sessionToken, s.clientUat));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cleared = res.headers.getSetCookie().join("\n");
    expect(cleared).toMatch(/__session=;[^\n]*Max-Age=0/);
    expect(cleared).toMatch(/__client_uat=0;/);
    expect((await calls())["bapi POST /v1/sessions/:id/revoke"]).toBe(1);
    // The client's token can no longer be refreshed.
    const refresh = await fetch(`${server.origin}/__clerk/v1/client/sessions/${s.sessionId}/tokens`, {
      method: "POST",
      headers: { Cookie: `__client=${s.clientId}` },
    });
    expect(refresh.status).toBe(401);
  });
});

describe("emulator APIs", () => {
  it("the Backend API answers with Content-Type exactly application/json and paginates memberships", async () => {
    const secret = readFileSync(join(server.dataDir, "clerk-emulator-secret"), "utf8").trim();
    const res = await fetch(
      `${server.origin}/__clerk/api/v1/organizations/org_seed_engines/memberships?limit=5&offset=5`,
      {
        headers: { Authorization: `Bearer sk_live_emulator_${secret}` },
      },
    );
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await res.json();
    expect(body.total_count).toBe(24);
    expect(body.data).toHaveLength(5);
    expect(body.data[0].object).toBe("organization_membership");
  });

  it("the Backend API refuses a wrong secret key", async () => {
    const res = await fetch(`${server.origin}/__clerk/api/v1/users`, {
      headers: { Authorization: "Bearer sk_live_wrong" },
    });
    expect(res.status).toBe(401);
  });

  it("faults answer 5xx for the next N calls and the calls are counted", async () => {
    await fetch(`${server.origin}/__clerk/_emulator/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ endpoint: "fapi GET /v1/environment", mode: "error", status: 503, times: 2 }),
    });
    const before = (await calls())["fapi GET /v1/environment"] ?? 0;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${server.origin}/__clerk/v1/environment`)).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await calls())["fapi GET /v1/environment"]).toBe(before + 3);
  });

  it("state survives a restart in the same data folder", async () => {
    const other = await startServer();
    let created: { sessionId: string; clientId: string };
    try {
      created = await fetch(`${other.origin}/__clerk/_emulator/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com" }),
      }).then((r) => r.json());
    } finally {
      expect(await other.stop()).toBe(0);
    }
    const again = await startServer({ CLERK_EMULATOR_DATA_DIR: other.dataDir });
    try {
      const state = JSON.parse(readFileSync(join(other.dataDir, "clerk-emulator.json"), "utf8"));
      expect(state.sessions.map((x: { id: string }) => x.id)).toContain(created.sessionId);
      const res = await fetch(`${again.origin}/__clerk/v1/client/sessions/${created.sessionId}/tokens`, {
        method: "POST",
        headers: { Cookie: `__client=${created.clientId}` },
      });
      expect(res.status).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
