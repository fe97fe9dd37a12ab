import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, errorCode, frontendClient, newPerson, newTeam, uniqueEmail } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Local mode: the app's server and the emulator's Frontend and Backend APIs, over real HTTP.
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const unique = uniqueEmail;

/** A new organization with a fresh admin and, when asked, a plain member. */
async function newOrganization({ withMember = false } = {}) {
  const team = await newTeam(bapi, { members: withMember ? 1 : 0 });
  return { org: team.org, admin: team.admin, member: team.members[0] ?? null };
}

const invite = (orgId: string, email: string, role = "org:member") =>
  bapi("POST", `/v1/organizations/${orgId}/invitations`, { email_address: email, role });

const ticketOf = (url: string) => new URL(url).searchParams.get("ticket")!;

describe("invitations through the Backend and Frontend APIs", () => {
  it("an invitation's link lands on sign-up with its ticket, and signing up with it makes a member", async () => {
    const { org } = await newOrganization();
    const email = unique("newcomer");
    const made = await invite(org.id, email, "org:admin");
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ object: "organization_invitation", status: "pending", role: "org:admin" });
    // Local mode names the address the app is opened at.
    expect(made.body.url).toMatch(/^http:\/\/localhost:\d+\/__clerk\/v1\/tickets\/accept\?ticket=tkt_/);
    const ticket = ticketOf(made.body.url);

    const browser = frontendClient(server.origin);
    const landing = await browser("GET", `/v1/tickets/accept?ticket=${ticket}`);
    expect(landing.status).toBe(303);
    const target = new URL(landing.headers.get("location")!, server.origin);
    expect(target.pathname).toBe("/sign-up");
    expect(target.searchParams.get("__clerk_ticket")).toBe(ticket);
    expect(target.searchParams.get("__clerk_status")).toBe("sign_up");

    // What Clerk's <SignUp/> sends: the ticket first, then the password.
    const started = await browser("POST", "/v1/client/sign_ups", { strategy: "ticket", ticket });
    expect(started.body.response).toMatchObject({
      status: "missing_requirements",
      email_address: email,
      missing_fields: ["password"],
      unverified_fields: [],
    });
    const done = await browser("PATCH", `/v1/client/sign_ups/${started.body.response.id}`, {
      password: "a-good-password",
      strategy: "ticket",
      ticket,
    });
    expect(done.body.response.status).toBe("complete");
    const userId = done.body.response.created_user_id as string;

    const memberships = await bapi("GET", `/v1/organizations/${org.id}/memberships?user_id=${userId}`);
    expect(memberships.body.data).toHaveLength(1);
    expect(memberships.body.data[0].role).toBe("org:admin");
    const after = await bapi("GET", `/v1/organizations/${org.id}/invitations/${made.body.id}`);
    expect(after.body.status).toBe("accepted");

    // Used once: a second person with the same link gets Clerk's error.
    const again = await frontendClient(server.origin)("POST", "/v1/client/sign_ups", { strategy: "ticket", ticket });
    expect(again.status).toBe(400);
    expect(errorCode(again)).toBe("organization_invitation_already_accepted");
  });

  it("someone who already has an account lands on sign-in, and the ticket alone signs them in as a member", async () => {
    const { org } = await newOrganization();
    const made = await invite(org.id, "grace@example.com");
    const ticket = ticketOf(made.body.url);
    const browser = frontendClient(server.origin);
    const landing = await browser("GET", `/v1/tickets/accept?ticket=${ticket}`);
    expect(new URL(landing.headers.get("location")!, server.origin).searchParams.get("__clerk_status")).toBe("sign_in");
    const signedIn = await browser("POST", "/v1/client/sign_ins", { strategy: "ticket", ticket });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.response.status).toBe("complete");
    expect(signedIn.body.client.sessions[0].user.id).toBe("user_seed_grace");
    const memberships = await bapi("GET", `/v1/organizations/${org.id}/memberships?user_id=user_seed_grace`);
    expect(memberships.body.data[0].role).toBe("org:member");

    // Signing up with a ticket for an address that has an account is refused, as Clerk does.
    const other = await invite(org.id, "alan@example.com");
    const refused = await frontendClient(server.origin)("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket: ticketOf(other.body.url),
    });
    expect(errorCode(refused)).toBe("organization_invitation_identification_already_exists");
  });

  it("refuses an address that is already a member, and a second pending invitation for one address", async () => {
    const { org } = await newOrganization({ withMember: true });
    const email = unique("twice");
    expect((await invite(org.id, email)).status).toBe(200);
    const duplicate = await invite(org.id, email);
    expect([duplicate.status, errorCode(duplicate)]).toEqual([400, "organization_invitation_not_unique"]);
    const { member } = await newOrganization({ withMember: true });
    const memberOrg = await bapi("GET", `/v1/users/${member!.id}/organization_memberships`);
    const already = await invite(memberOrg.body.data[0].organization.id, member!.email);
    expect([already.status, errorCode(already)]).toEqual([400, "already_a_member_in_organization"]);
  });

  it("a revoked, used or expired ticket gets Clerk's error, and only a pending invitation can be revoked", async () => {
    const { org } = await newOrganization();
    const revoked = await invite(org.id, unique("revoked"));
    const revoke = await bapi("POST", `/v1/organizations/${org.id}/invitations/${revoked.body.id}/revoke`);
    expect(revoke.body.status).toBe("revoked");
    const revokeAgain = await bapi("POST", `/v1/organizations/${org.id}/invitations/${revoked.body.id}/revoke`);
    expect([revokeAgain.status, errorCode(revokeAgain)]).toEqual([404, "organization_invitation_not_pending"]);
    const signUp = (url: string) =>
      frontendClient(server.origin)("POST", "/v1/client/sign_ups", { strategy: "ticket", ticket: ticketOf(url) });
    expect(errorCode(await signUp(revoked.body.url))).toBe("organization_invitation_revoked_code");

    const expired = await invite(org.id, unique("expired"));
    await fetch(`${server.origin}/__clerk/_emulator/invitations/${expired.body.id}/expire`, { method: "POST" });
    expect(errorCode(await signUp(expired.body.url))).toBe("ticket_expired_code");
    const pending = await bapi("GET", `/v1/organizations/${org.id}/invitations?status=pending`);
    expect(pending.body.data).toEqual([]);

    const forged = await frontendClient(server.origin)("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: "tkt_forged",
    });
    expect([forged.status, errorCode(forged)]).toEqual([400, "ticket_invalid_code"]);
    // Clerk's errors carry no field name, so its components show them on the card.
    expect(forged.body.errors[0].meta).toEqual({});
  });

  it("sign-in tokens sign their user in once, and can be revoked while pending", async () => {
    const token = await bapi("POST", "/v1/sign_in_tokens", { user_id: "user_seed_ada", expires_in_seconds: 300 });
    expect(token.body).toMatchObject({ object: "sign_in_token", user_id: "user_seed_ada", status: "pending" });
    const browser = frontendClient(server.origin);
    const signedIn = await browser("POST", "/v1/client/sign_ins", { strategy: "ticket", ticket: token.body.token });
    expect(signedIn.body.response.status).toBe("complete");
    const reused = await frontendClient(server.origin)("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: token.body.token,
    });
    expect(errorCode(reused)).toBe("ticket_invalid_code");
    const used = await bapi("POST", `/v1/sign_in_tokens/${token.body.id}/revoke`);
    expect([used.status, errorCode(used)]).toEqual([400, "sign_in_token_cannot_be_revoked_code"]);

    const spare = await bapi("POST", "/v1/sign_in_tokens", { user_id: "user_seed_ada" });
    expect((await bapi("POST", `/v1/sign_in_tokens/${spare.body.id}/revoke`)).body.status).toBe("revoked");
  });

  it("testing tokens are issued and, sent back, set captcha_bypass on the client", async () => {
    const issued = await bapi("POST", "/v1/testing_tokens");
    expect(issued.body).toMatchObject({ object: "testing_token" });
    const browser = frontendClient(server.origin);
    const plain = await browser("POST", "/v1/client");
    expect(plain.body.response.captcha_bypass).toBe(false);
    const withToken = await browser("GET", `/v1/client?__clerk_testing_token=${issued.body.token}`);
    expect(withToken.body.response.captcha_bypass).toBe(true);
    const forged = await browser("GET", "/v1/client?__clerk_testing_token=forged");
    expect(forged.body.response.captcha_bypass).toBe(false);
  });
});

describe("the last admin stays", () => {
  it("cannot be demoted, removed or leave, through either API, until there is another admin", async () => {
    const { org, admin, member } = await newOrganization({ withMember: true });
    const demote = await bapi("PATCH", `/v1/organizations/${org.id}/memberships/${admin.id}`, { role: "org:member" });
    expect([demote.status, errorCode(demote)]).toEqual([400, "organization_minimum_permissions_needed"]);
    const remove = await bapi("DELETE", `/v1/organizations/${org.id}/memberships/${admin.id}`);
    expect(errorCode(remove)).toBe("organization_minimum_permissions_needed");

    // The admin's own browser, as Clerk's OrganizationProfile drives it.
    const browser = frontendClient(server.origin);
    await browser("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: (await bapi("POST", "/v1/sign_in_tokens", { user_id: admin.id })).body.token,
    });
    const leave = await browser("DELETE", `/v1/me/organization_memberships/${org.id}`);
    expect([leave.status, errorCode(leave)]).toEqual([400, "organization_minimum_permissions_needed"]);
    const selfDemote = await browser("PATCH", `/v1/organizations/${org.id}/memberships/${admin.id}`, {
      role: "org:member",
    });
    expect(errorCode(selfDemote)).toBe("organization_minimum_permissions_needed");

    // Promote the member; now the first admin may step down and leave.
    const promote = await browser("PATCH", `/v1/organizations/${org.id}/memberships/${member!.id}`, {
      role: "org:admin",
    });
    expect(promote.body.response.role).toBe("org:admin");
    expect((await browser("DELETE", `/v1/me/organization_memberships/${org.id}`)).body.response).toMatchObject({
      deleted: true,
    });
    const left = await bapi("GET", `/v1/organizations/${org.id}/memberships`);
    expect(left.body.data.map((m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id)).toEqual([
      member!.id,
    ]);
  });

  it("a plain member cannot change roles or remove anyone through the Frontend API", async () => {
    const { org, admin, member } = await newOrganization({ withMember: true });
    const browser = frontendClient(server.origin);
    await browser("POST", "/v1/client/sign_ins", {
      strategy: "ticket",
      ticket: (await bapi("POST", "/v1/sign_in_tokens", { user_id: member!.id })).body.token,
    });
    const promoteSelf = await browser("PATCH", `/v1/organizations/${org.id}/memberships/${member!.id}`, {
      role: "org:admin",
    });
    expect([promoteSelf.status, errorCode(promoteSelf)]).toEqual([403, "missing_organization_permission"]);
    const removeAdmin = await browser("DELETE", `/v1/organizations/${org.id}/memberships/${admin.id}`);
    expect(removeAdmin.status).toBe(403);
  });
});

describe("the members page's revoke form", () => {
  const post = (path: string, fields: Record<string, string>, cookie: string) => postForm(server, path, fields, cookie);
  const cookieFor = (email: string) => emulatorCookie(server.origin, email);

  it("revokes for an admin, refuses a member (403) and a stranger (404), and explains a second try", async () => {
    const made = await invite("org_seed_engines", unique("to-revoke"));
    const path = "/orgs/analytical-engines/members";
    const fields = { intent: "revoke", invitationId: made.body.id };

    expect((await post(path, fields, await cookieFor("grace@example.com"))).status).toBe(403);
    expect((await post("/orgs/difference-co/members", fields, await cookieFor("alan@example.com"))).status).toBe(404);

    const ada = await cookieFor("ada@example.com");
    const page = await (await fetch(server.origin + path, { headers: { Cookie: ada } })).text();
    // Local mode: the admin sees the link itself, since no email carries it.
    expect(page).toContain(made.body.url.replace(/&/g, "&amp;"));

    const revoked = await post(path, fields, ada);
    expect(revoked.status).toBe(200);
    expect((await bapi("GET", `/v1/organizations/org_seed_engines/invitations/${made.body.id}`)).body.status).toBe(
      "revoked",
    );
    const again = await post(path, fields, ada);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("no longer pending");
    const bad = await post(path, { intent: "revoke", invitationId: "<script>" }, ada);
    expect(bad.status).toBe(400);
  });
});

describe("accepting an invitation that waits for a signed-in person (POST /orgs)", () => {
  const accept = async (email: string, invitationId: string) =>
    postForm(server, "/orgs?index", { invitationId }, await emulatorCookie(server.origin, email));

  it("the Backend API lists a person's invitations with the organization's public data, by status", async () => {
    const { org } = await newOrganization();
    const person = await newPerson(bapi, "listed");
    const made = await invite(org.id, person.email, "org:admin");
    const list = await bapi("GET", `/v1/users/${person.id}/organization_invitations?status=pending`);
    expect(list.status).toBe(200);
    expect(list.body.total_count).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      id: made.body.id,
      role: "org:admin",
      status: "pending",
      public_organization_data: { id: org.id, name: org.name, slug: org.slug, has_image: false },
    });
    expect((await bapi("GET", `/v1/users/${person.id}/organization_invitations?status=accepted`)).body.data).toEqual(
      [],
    );
    const bad = await bapi("GET", `/v1/users/${person.id}/organization_invitations?status=maybe`);
    expect(bad.status).toBe(422);
  });

  it("makes the invitee a member and opens the organization; nobody else can use their invitation", async () => {
    const { org } = await newOrganization();
    const invitee = await newPerson(bapi, "invitee");
    const made = await invite(org.id, invitee.email);
    const page = await (
      await fetch(`${server.origin}/orgs`, { headers: { Cookie: await emulatorCookie(server.origin, invitee.email) } })
    ).text();
    expect(page).toContain(`Accept the invitation to ${org.name}`);

    // Someone else, signed in, naming the invitee's invitation: as if it did not exist.
    const stranger = await newPerson(bapi, "stranger");
    const refused = await accept(stranger.email, made.body.id);
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain("no longer open");
    expect((await bapi("GET", `/v1/users/${stranger.id}/organization_memberships`)).body.data).toEqual([]);

    const accepted = await accept(invitee.email, made.body.id);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/orgs/${org.slug}`);
    const memberships = await bapi("GET", `/v1/users/${invitee.id}/organization_memberships`);
    expect(
      memberships.body.data.map((m: { organization: { id: string }; role: string }) => [m.organization.id, m.role]),
    ).toEqual([[org.id, "org:member"]]);
    expect((await accept(invitee.email, made.body.id)).status).toBe(404);
  });

  it("an invitation names the organization as it is now: a rename in Clerk shows at once, a deletion takes it away", async () => {
    const { org } = await newOrganization();
    const invitee = await newPerson(bapi, "renamed");
    await invite(org.id, invitee.email);
    const cookie = await emulatorCookie(server.origin, invitee.email);
    const orgsPage = async () => (await fetch(`${server.origin}/orgs`, { headers: { Cookie: cookie } })).text();
    expect(await orgsPage()).toContain(`Accept the invitation to ${org.name}`);

    // Local mode: the emulator's webhook reaches the app, which keeps answers 5 minutes otherwise.
    const name = `Renamed ${Date.now().toString(36)}`;
    expect((await bapi("PATCH", `/v1/organizations/${org.id}`, { name })).status).toBe(200);
    await expect.poll(orgsPage, { timeout: 2_000 }).toContain(`Accept the invitation to ${name}`);
    expect((await bapi("DELETE", `/v1/organizations/${org.id}`)).status).toBe(200);
    await expect.poll(orgsPage, { timeout: 2_000 }).not.toContain("Accept the invitation to");
  });

  it("refuses what is not an invitation id (400) and a signed-out post (sign-in)", async () => {
    const person = await newPerson(bapi, "malformed");
    const bad = await accept(person.email, "<script>");
    expect(bad.status).toBe(400);
    const signedOut = await postForm(server, "/orgs?index", { invitationId: "orginv_x" }, "");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toMatch(/^\/sign-in/);
  });
});
