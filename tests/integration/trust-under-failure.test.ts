import { getCookieSuffix } from "@clerk/shared/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionClaimsInput } from "clerk-emulator/testing";
import { armFault, backendApi, emulatorCalls, newTeam } from "../support/emulator-api";
import { scrapeMetrics } from "../support/metrics";
import { freePort, keysModeOn, postForm, type RunningServer, startServer } from "../support/server";
import { browserCookies, emulatorSession, emulatorToken } from "../support/session";

// Production's trust boundaries with Clerk failing or lied to. The app runs
// in keys mode without webhooks; a local-mode server stands in for Clerk
// (its Backend API and JWKS, with faults armed and calls counted).
let clerk: RunningServer;
let app: RunningServer;
let appWithJwtKey: RunningServer;
let metricsPort: number;
let bapi: ReturnType<typeof backendApi>;
const PUBLISHABLE_KEY = `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`;

beforeAll(async () => {
  clerk = await startServer({ LOG_LEVEL: "silent" });
  bapi = backendApi(clerk.origin, clerk.dataDir);
  const { env: keysMode, jwtKey } = keysModeOn(clerk, "trust-under-failure-session-secret-0123456789");
  metricsPort = await freePort();
  [app, appWithJwtKey] = await Promise.all([
    // Verifying with Clerk's JWKS, read from the Backend API: what costs calls.
    startServer({ ...keysMode, METRICS_PORT: String(metricsPort) }),
    startServer({ ...keysMode, CLERK_JWT_KEY: jwtKey }),
  ]);
});

afterAll(async () => {
  for (const server of [app, appWithJwtKey, clerk]) if (server) await server.stop();
});

const now = () => Math.floor(Date.now() / 1000);

/** A browser signed in as `userId`, its token made (by Clerk's key) with `claims`, and no active organization unless they say so. */
async function browserOf(email: string, claims: Record<string, unknown> = {}, org: SessionClaimsInput["org"] = null) {
  const session = await emulatorSession(clerk.origin, email);
  const iat = now();
  const token = emulatorToken(clerk.dataDir, session, { iat, exp: iat + 60 }, { claims, org });
  return { session, cookie: browserCookies(session, token, iat - 10) };
}

const getPage = (server: RunningServer, path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

/** How many calls Clerk's Backend API (JWKS included) got while `work` ran. */
async function clerkCallsDuring(work: () => Promise<unknown>): Promise<number> {
  const count = async () =>
    Object.entries(await emulatorCalls(clerk.origin))
      .filter(([endpoint]) => endpoint.startsWith("bapi "))
      .reduce((sum, [, n]) => sum + n, 0);
  const before = await count();
  await work();
  return (await count()) - before;
}

describe("a removed member while Clerk fails", () => {
  it("keeps the organization only within the kept memberships' fresh lifetime, then gets the 503 and nothing of it", async () => {
    const team = await newTeam(bapi, { members: 1 });
    const member = team.members[0]!;
    const { cookie } = await browserOf(member.email);
    // The view reads the member's memberships and keeps them: the copy is read between these two instants.
    const readAfter = Date.now();
    expect((await getPage(app, `/orgs/${team.org.slug}`, cookie)).status).toBe(200);
    const readBy = Date.now();

    // Removed in Clerk; from now on Clerk cannot say whose memberships are what.
    expect((await bapi("DELETE", `/v1/organizations/${team.org.id}/memberships/${member.id}`)).status).toBe(200);
    await armFault(clerk.origin, {
      endpoint: "bapi GET /v1/users/:id/organization_memberships",
      mode: "error",
      status: 503,
      times: 1_000,
      pathIncludes: member.id,
    });
    // Within the copy's fresh lifetime (2 s without webhooks) it still grants:
    // as it would if Clerk had answered a moment before the removal.
    const within = await getPage(app, `/orgs/${team.org.slug}`, cookie);
    expect(Date.now() - readAfter).toBeLessThan(2_000);
    expect(within.status).toBe(200);

    // Past its lifetime however late in the first view it was read (a loaded machine made that view slow,
    // and a wait counted from before it left the copy fresh).
    await new Promise((r) => setTimeout(r, Math.max(0, readBy + 2_500 - Date.now())));
    for (const path of [`/orgs/${team.org.slug}`, `/orgs/${team.org.slug}/members`]) {
      const res = await getPage(app, path, cookie);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("Retry-After")).toMatch(/^\d+$/);
      const html = await res.text();
      expect(html).toContain("temporarily unavailable");
      expect(html).not.toContain(team.org.name);
      expect(html).not.toContain(team.admin.email);
    }
    const refused = (await scrapeMetrics(metricsPort)).get(
      'cache_lookups_total{cache="memberships",result="too_old_to_authorize"}',
    );
    expect(refused).toBeGreaterThanOrEqual(1);
  });
});

describe("what a request carries never multiplies its Clerk calls", () => {
  /** 50 small JWT-shaped session cookies with made-up key ids (about 7 KB), this instance's suffix among them. */
  async function fiftyForgedCookies(): Promise<string> {
    const suffix = await getCookieSuffix(PUBLISHABLE_KEY);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const forged = (i: number) =>
      `${part({ alg: "RS256", typ: "JWT", kid: `ins_made_up_${i}` })}.${part({ sub: "user_x", exp: now() + 60 })}.c2ln`;
    const names = Array.from({ length: 49 }, (_, i) => `__session_${i.toString(36).padStart(8, "x")}`);
    const cookies = [...names, `__session_${suffix}`].map((name, i) => `${name}=${forged(i)}`);
    return ["__client_uat=1", ...cookies].join("; ");
  }

  it.each([
    ["the theme form", "/resources/theme", { theme: "dark", redirectTo: "/" }],
    ["sign-out", "/resources/sign-out", {}],
  ])(
    "%s with 50 forged session cookies costs at most 4 calls, with the JWKS or with CLERK_JWT_KEY",
    async (_, path, fields) => {
      const cookie = await fiftyForgedCookies();
      expect(cookie.length).toBeGreaterThan(6_000);
      for (const server of [app, appWithJwtKey]) {
        let status = 0;
        const calls = await clerkCallsDuring(async () => {
          status = (await postForm(server, path, fields, cookie)).status;
        });
        expect(status).toBe(303);
        expect(calls).toBeLessThanOrEqual(server === app ? 4 : 0);
        // Again within the minute: the unknown key ids are remembered as unknown.
        const again = await clerkCallsDuring(() => postForm(server, path, fields, cookie));
        expect(again).toBe(0);
      }
    },
  );
});

describe("verifying sessions without CLERK_JWT_KEY", () => {
  it("is said at start, with how to set the key", () => {
    const warning = (server: RunningServer) =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"event":"warning"') && line.includes("CLERK_JWT_KEY is not set"));
    expect(warning(app)).toHaveLength(1);
    expect(warning(app)[0]).toContain("JWT public key");
    expect(warning(appWithJwtKey)).toHaveLength(0);
  });
});

describe("a session token made for another origin", () => {
  it("is no session here: on a page, in a stale-token form, and for sign-out", async () => {
    const team = await newTeam(bapi);
    const org = { id: team.org.id, slug: team.org.slug, role: "org:admin" };
    const ours = await browserOf(team.admin.email, { azp: app.origin }, org);
    expect((await getPage(app, `/orgs/${team.org.slug}`, ours.cookie)).status).toBe(200);

    const foreign = await browserOf(team.admin.email, { azp: "https://other-app.example" }, org);
    for (const server of [app, appWithJwtKey]) {
      const page = await getPage(server, `/orgs/${team.org.slug}`, foreign.cookie);
      expect(page.status).toBe(302);
      expect(page.headers.get("Location")).toMatch(/^\/sign-in\?redirect_url=/);
    }

    // Expired a minute ago: the stale-token rescue would confirm the session with Clerk, were the token ours.
    const exp = now() - 60;
    const staleForeign = emulatorToken(
      clerk.dataDir,
      foreign.session,
      { iat: exp - 60, exp },
      { claims: { azp: "https://other-app.example" } },
    );
    const staleCookie = browserCookies(foreign.session, staleForeign, exp - 120);
    const created = await postForm(app, "/orgs/new", { name: `Foreign ${Date.now()}`, slug: "" }, staleCookie);
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toMatch(/^\/sign-in\?redirect_url=/);
    expect((await bapi("GET", `/v1/users/${team.admin.id}/organization_memberships`)).body.total_count).toBe(1);

    // Sign-out with it ends nothing in Clerk (the cookies here are cleared all the same).
    expect((await postForm(app, "/resources/sign-out", {}, staleCookie)).status).toBe(303);
    expect((await bapi("GET", `/v1/sessions/${foreign.session.sessionId}`)).body.status).toBe("active");
  });
});
