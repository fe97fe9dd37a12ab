import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../server/local-mode";
import { emulatorCalls, frontendClient } from "../support/emulator-api";
import { runServerExpectingExit, startServer, type RunningServer } from "../support/server";
import { sessionCookieHeader } from "../support/session";

// The app on each of Clerk's session token formats: version 2 (the default,
// as Clerk issues them) and version 1 (CLERK_EMULATOR_SESSION_TOKEN_VERSION=1,
// an instance not yet moved over). Signed in through the Frontend API as
// clerk-js does, an organization made active (`touch`), the organization's
// pages authorize from the token alone: no read of the person's memberships,
// and the role the page shows is the token's.

const MEMBERSHIPS = "bapi GET /v1/users/:id/organization_memberships";
const payloadOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

describe.each([
  { version: 2, env: {} },
  { version: 1, env: { CLERK_EMULATOR_SESSION_TOKEN_VERSION: "1" } },
])("session tokens version $version", ({ version, env }) => {
  let server: RunningServer;
  let browser: ReturnType<typeof frontendClient>;
  let sessionId: string;

  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_WEBHOOKS: "off", ...env });
    browser = frontendClient(server.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins", {
      identifier: "ada@example.com",
      password: DEMO_PASSWORD,
    });
    expect(signIn.body.response.status).toBe("complete");
    sessionId = signIn.body.response.created_session_id as string;
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  /** Makes `orgId` the session's active organization, as the switcher does: the cookies of its new token. */
  async function activate(orgId: string) {
    const touched = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { active_organization_id: orgId });
    expect(touched.status).toBe(200);
    const jwt = touched.body.response.last_active_token.jwt as string;
    const claims = payloadOf(jwt);
    return { claims, cookie: sessionCookieHeader(jwt, claims.iat as number) };
  }

  const membershipReads = async () => (await emulatorCalls(server.origin))[MEMBERSHIPS] ?? 0;
  const get = (path: string, cookie: string) =>
    fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

  it("the token is in the version asked for", async () => {
    const { claims } = await activate("org_seed_engines");
    if (version === 2) {
      expect(claims).toMatchObject({
        v: 2,
        sts: "active",
        o: { id: "org_seed_engines", slg: "analytical-engines", rol: "admin" },
      });
      expect(Object.keys(claims).filter((k) => k.startsWith("org_"))).toEqual([]);
    } else {
      expect(claims).toMatchObject({
        org_id: "org_seed_engines",
        org_slug: "analytical-engines",
        org_role: "org:admin",
        org_permissions: [],
      });
      expect(Object.keys(claims)).not.toContain("v");
      expect(Object.keys(claims)).not.toContain("o");
    }
  });

  it("an admin's active organization: its pages authorize from the token, the admin's parts shown", async () => {
    const { cookie } = await activate("org_seed_engines");
    const before = await membershipReads();
    for (const path of ["/orgs/analytical-engines", "/orgs/analytical-engines/members"]) {
      const res = await get(path, cookie);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html).toContain("Analytical Engines");
      if (path.endsWith("/members")) expect(html).toContain("Invite someone");
    }
    expect(await membershipReads()).toBe(before);
    // The root sends the active organization's people there.
    expect((await get("/", cookie)).headers.get("location")).toBe("/orgs/analytical-engines");
  });

  it("a member's active organization: the same, and no admin's parts", async () => {
    const { cookie } = await activate("org_seed_difference");
    const before = await membershipReads();
    const res = await get("/orgs/difference-co/members", cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain("Invite someone");
    expect(await membershipReads()).toBe(before);
  });

  it("another organization than the token's is checked against the person's memberships", async () => {
    const { cookie } = await activate("org_seed_difference");
    const before = await membershipReads();
    expect((await get("/orgs/analytical-engines", cookie)).status).toBe(200);
    expect(await membershipReads()).toBeGreaterThan(before);
  });
});

it("local mode stops with one line on a CLERK_EMULATOR_SESSION_TOKEN_VERSION that is not 1 or 2", async () => {
  const { code, output } = await runServerExpectingExit({
    CLERK_EMULATOR_DATA_DIR: "memory",
    CLERK_EMULATOR_SESSION_TOKEN_VERSION: "v2",
  });
  expect(code).toBe(1);
  expect(output.trim().split("\n")).toEqual([
    'CLERK_EMULATOR_SESSION_TOKEN_VERSION: 1 or 2, Clerk\'s session token versions (got "v2")',
  ]);
});
