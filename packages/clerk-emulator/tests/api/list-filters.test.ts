import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { declaredOperations } from "../../src/backend/declarations";
import { MEMBERSHIP_LIST } from "../../src/backend/organizations";
import { USER_LIST } from "../../src/backend/users";
import { errorCode, frontendClient, startInProcessEmulator, type InProcessEmulator } from "../../testing";

// Issue 49: `GET /v1/users?phone_number=…` answered every user (the emulator
// keeps no phone numbers and ignored the filter), and Clerk's test helper then
// deleted them all. Every documented filter of every Backend API list is
// applied, one on an attribute nobody has keeps nobody, and a parameter Clerk
// does not document is refused, never ignored.
let emu: InProcessEmulator;
const idsOf = (list: { id: string }[]) => list.map((u) => u.id).sort();
let zed: { id: string; created_at: number };
/** Every user: the seeded ones and Zed. */
let everyone: string[] = [];
const without = (...ids: string[]) => everyone.filter((id) => !ids.includes(id));
const ADA = "user_seed_ada";
const GRACE = "user_seed_grace";

beforeAll(async () => {
  emu = await startInProcessEmulator();
  const made = await emu.bapi("POST", "/v1/users", {
    email_address: ["zed@example.com"],
    first_name: "Zed",
    last_name: "Tester",
    username: "Zed_T",
    phone_number: ["+15555550123"],
  });
  expect(made.status).toBe(200);
  zed = made.body;
  // Grace signs in once: she alone has a last sign-in (and last activity).
  const browser = frontendClient(emu.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", {
    identifier: "grace@example.com",
    password: DEMO_PASSWORD,
  });
  expect(signIn.body.response.status).toBe("complete");
  everyone = idsOf((await emu.bapi("GET", "/v1/users?limit=500")).body);
  expect(everyone.length).toBeGreaterThan(3);
});

afterAll(async () => {
  await emu.close();
});

describe("GET /v1/users and /v1/users/count", () => {
  /** Each documented filter, with what it must answer on this emulator (the seeded people and Zed). */
  const cases = (): Record<string, [string, string[]][]> => ({
    email_address: [
      ["grace@example.com", [GRACE]],
      ["GRACE@example.com", [GRACE]],
    ],
    phone_number: [
      ["+15555550100", []],
      ["+15555550123", [zed.id]],
    ],
    username: [
      ["ada", []],
      ["ZED_T", [zed.id]],
    ],
    web3_wallet: [["0x0000000000000000000000000000000000000001", []]],
    external_id: [["ext-1", []]],
    user_id: [
      [ADA, [ADA]],
      [`-${ADA}`, without(ADA)],
    ],
    organization_id: [
      ["org_seed_engines", without(zed.id)],
      ["-org_seed_engines", [zed.id]],
    ],
    query: [
      ["lovelace", [ADA]],
      ["zed@", [zed.id]],
      ["zed_t", [zed.id]],
      ["5550123", [zed.id]],
    ],
    email_address_query: [["GRACE", [GRACE]]],
    phone_number_query: [
      ["999", []],
      ["5550123", [zed.id]],
    ],
    username_query: [
      ["a", []],
      ["ED_", [zed.id]],
    ],
    name_query: [["hopper", [GRACE]]],
    banned: [
      ["true", []],
      ["false", everyone],
    ],
    last_active_at_before: [[String(Date.now() + 60_000), [GRACE]]],
    last_active_at_after: [["0", [GRACE]]],
    last_active_at_since: [["0", [GRACE]]],
    created_at_before: [
      [String(zed.created_at + 1), everyone],
      [String(zed.created_at), without(zed.id)],
    ],
    created_at_after: [[String(zed.created_at - 1), [zed.id]]],
    last_sign_in_at_before: [[String(Date.now() + 60_000), [GRACE]]],
    last_sign_in_at_after: [["0", [GRACE]]],
    provider: [["oauth_google", []]],
    provider_user_id: [["1234", []]],
  });

  it("has a case here for every filter the emulator documents", () => {
    expect(Object.keys(cases()).sort()).toEqual(Object.keys(USER_LIST.filters).sort());
  });

  it("applies each of them, to the list and to the count alike", async () => {
    for (const [name, examples] of Object.entries(cases())) {
      for (const [value, expected] of examples) {
        const query = `${name}=${encodeURIComponent(value)}&limit=500`;
        const list = await emu.bapi("GET", `/v1/users?${query}`);
        expect([list.status, idsOf(list.body)], `/v1/users?${query}`).toEqual([200, [...expected].sort()]);
        const count = await emu.bapi("GET", `/v1/users/count?${name}=${encodeURIComponent(value)}`);
        expect(count.body.total_count, `/v1/users/count?${name}=${value}`).toBe(expected.length);
      }
    }
  });

  it("a phone number nobody has finds nobody, repeated or not", async () => {
    const r = await emu.bapi("GET", "/v1/users?phone_number=%2B15555550100&phone_number=%2B15555550101");
    expect(r.body).toEqual([]);
  });

  it("filters combine", async () => {
    const r = await emu.bapi("GET", `/v1/users?organization_id=org_seed_engines&name_query=ada`);
    expect(idsOf(r.body)).toEqual([ADA]);
  });

  it("orders (order_by, newest first by default) and pages (limit, offset, starting_after)", async () => {
    const three = `user_id=${ADA}&user_id=${GRACE}&user_id=${zed.id}`;
    const byEmail = await emu.bapi("GET", `/v1/users?${three}&order_by=email_address`);
    expect(byEmail.body.map((u: { id: string }) => u.id)).toEqual([ADA, GRACE, zed.id]);
    const reversed = await emu.bapi("GET", `/v1/users?${three}&order_by=-email_address`);
    expect(reversed.body.map((u: { id: string }) => u.id)).toEqual([zed.id, GRACE, ADA]);
    expect((await emu.bapi("GET", "/v1/users")).body[0].id).toBe(zed.id);
    const second = await emu.bapi("GET", `/v1/users?${three}&order_by=email_address&limit=1&offset=1`);
    expect(idsOf(second.body)).toEqual([GRACE]);
    const after = await emu.bapi("GET", `/v1/users?${three}&order_by=email_address&starting_after=${ADA}`);
    expect(after.body.map((u: { id: string }) => u.id)).toEqual([GRACE, zed.id]);
    const bad = await emu.bapi("GET", "/v1/users?order_by=shoe_size");
    expect([bad.status, errorCode(bad)]).toEqual([422, "form_param_value_invalid"]);
  });

  it("a malformed timestamp or flag is Clerk's 422, not a filter ignored", async () => {
    const r = await emu.bapi("GET", "/v1/users?created_at_after=yesterday");
    expect([r.status, errorCode(r)]).toEqual([422, "form_param_format_invalid"]);
    const b = await emu.bapi("GET", "/v1/users/count?banned=maybe");
    expect([b.status, errorCode(b)]).toEqual([422, "form_param_format_invalid"]);
  });
});

describe("a parameter Clerk does not document", () => {
  it("is refused on every Backend API GET with Clerk's 422 form_param_unknown naming it", async () => {
    const gets = [...declaredOperations().keys()].filter((key) => key.startsWith("GET "));
    const paths = gets.map((key) =>
      key
        .slice("GET ".length)
        .replace(":invitationId", "orginv_none")
        .replace("/users/:id", `/users/${ADA}`)
        .replace("/organizations/:id", "/organizations/org_seed_engines")
        .replace("/sessions/:id", "/sessions/sess_none"),
    );
    for (const path of paths) {
      const r = await emu.bapi("GET", `${path}?phone=%2B15555550100`);
      expect([r.status, errorCode(r)], path).toEqual([422, "form_param_unknown"]);
      expect(r.body.errors[0]).toMatchObject({
        message: "is unknown",
        long_message: "phone is not a valid parameter for this request.",
        meta: { param_name: "phone" },
      });
    }
  });

  it("a misspelt filter is refused, not read as no filter", async () => {
    const r = await emu.bapi("GET", "/v1/users?emailAddress=ada%40example.com");
    expect([r.status, errorCode(r)]).toEqual([422, "form_param_unknown"]);
  });
});

describe("the other lists", () => {
  it("an organization's memberships: every documented filter applies", async () => {
    const members = without(zed.id);
    const cases: Record<string, [string, string[]]> = {
      user_id: [GRACE, [GRACE]],
      email_address: ["ada@example.com", [ADA]],
      phone_number: ["+15555550100", []],
      username: ["grace", []],
      web3_wallet: ["0x0000000000000000000000000000000000000001", []],
      role: ["org:admin", [ADA]],
      query: ["hopper", [GRACE]],
      email_address_query: ["ADA@", [ADA]],
      phone_number_query: ["555", []],
      username_query: ["g", []],
      name_query: ["lovelace", [ADA]],
      last_active_at_before: [String(Date.now() + 60_000), [GRACE]],
      last_active_at_after: ["0", [GRACE]],
      created_at_before: ["0", []],
      created_at_after: ["0", members],
    };
    expect(Object.keys(cases).sort()).toEqual(Object.keys(MEMBERSHIP_LIST.filters).sort());
    for (const [name, [value, expected]] of Object.entries(cases)) {
      const r = await emu.bapi(
        "GET",
        `/v1/organizations/org_seed_engines/memberships?${name}=${encodeURIComponent(value)}&limit=500`,
      );
      const users = r.body.data.map((m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id);
      expect([r.status, users.sort()], `${name}=${value}`).toEqual([200, [...expected].sort()]);
    }
  });

  it("organizations: query, user_id and organization_id (with + and -)", async () => {
    const list = async (q: string) =>
      idsOf((await emu.bapi("GET", `/v1/organizations?${q}`)).body.data as { id: string }[]);
    expect(await list("query=difference")).toEqual(["org_seed_difference"]);
    expect(await list(`user_id=${zed.id}`)).toEqual([]);
    expect(await list(`user_id=${ADA}`)).toEqual(["org_seed_difference", "org_seed_engines"]);
    expect(await list("organization_id=-org_seed_engines")).toEqual(["org_seed_difference"]);
    expect(await list("organization_id=%2Borg_seed_engines")).toEqual(["org_seed_engines"]);
  });

  it("invitations, an organization's and the application's: status, email_address, query", async () => {
    const made = await emu.bapi("POST", "/v1/organizations/org_seed_engines/invitations", {
      email_address: "invitee@example.com",
      role: "org:member",
    });
    expect(made.status).toBe(200);
    const orgList = async (q: string) =>
      idsOf((await emu.bapi("GET", `/v1/organizations/org_seed_engines/invitations?${q}`)).body.data);
    expect(await orgList("email_address=invitee%40example.com")).toEqual([made.body.id]);
    expect(await orgList("email_address=someone-else%40example.com")).toEqual([]);
    expect(await orgList("status=revoked")).toEqual([]);

    const app = await emu.bapi("POST", "/v1/invitations", { email_address: "app-invitee@example.com" });
    const appList = async (q: string) => idsOf((await emu.bapi("GET", `/v1/invitations?${q}`)).body);
    expect(await appList("query=app-invitee")).toEqual([app.body.id]);
    expect(await appList("query=nobody")).toEqual([]);
    expect(await appList("status=accepted")).toEqual([]);
  });

  it("sessions: user_id, client_id and status", async () => {
    const grace = await emu.bapi("GET", `/v1/sessions?user_id=${GRACE}`);
    expect(grace.body).toHaveLength(1);
    const clientId = grace.body[0].client_id as string;
    expect(await emu.bapi("GET", `/v1/sessions?client_id=${clientId}&status=active`)).toMatchObject({
      body: [{ user_id: GRACE }],
    });
    expect((await emu.bapi("GET", `/v1/sessions?user_id=${GRACE}&status=revoked`)).body).toEqual([]);
    expect((await emu.bapi("GET", `/v1/sessions?user_id=${ADA}`)).body).toEqual([]);
  });
});
