import { randomBytes } from "node:crypto";
import { createClerkClient as createCore2Client } from "@clerk/backend";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startWebhookSink,
  type WebhookSink,
  errorCode,
  frontendClient,
  newPerson,
  startInProcessEmulator,
  TEAM_PASSWORD,
  type InProcessEmulator,
  newWebhookSecret,
} from "../../testing";
import { emulatorPublishableKey } from "../../src/domain/instance-keys";
import { loadCore3Backend } from "../support/clerk-sdks";
import { webhookBreaches } from "../../contract";

// Issue 49: the emulator knew only org:admin and org:member and refused any
// other role with a 422. Clerk's instances define their own roles and
// permissions (`/v1/organization_roles`, `/v1/organization_permissions`); a
// custom role is given like any other, OrganizationProfile offers it, the
// Frontend API checks the system permissions a role has (not its name), and a
// session token carries its custom permissions, which both SDK lines read.

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDKs' resources and Clerk's JSON, read by each test */
type Sdk = any;
const SECRET = newWebhookSecret();
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
const received: { type: string; data: Record<string, any>; body: { type: string } }[] = [];
let sink: WebhookSink;
let emu: InProcessEmulator;
let core2: Sdk;
let core3: Sdk;
let createCore3Client: (options: object) => Sdk;

beforeAll(async () => {
  sink = await startWebhookSink(SECRET, (e) => received.push(e));
  emu = await startInProcessEmulator({
    secretKey: SECRET_KEY,
    webhooks: { url: sink.url, secret: SECRET },
  });
  const secretKey = SECRET_KEY;
  const apiUrl = `${emu.origin}/__clerk/api`;
  core2 = createCore2Client({ secretKey, apiUrl });
  createCore3Client = (await loadCore3Backend<{ createClerkClient: any }>()).createClerkClient;
  core3 = createCore3Client({ secretKey, apiUrl });
});

afterAll(async () => {
  await emu?.close();
  await sink?.close();
});

afterEach(() => {
  expect(received.flatMap((e) => webhookBreaches(e.body))).toEqual([]);
});

async function eventsOf(type: string, count: number) {
  await expect
    .poll(() => received.filter((e) => e.type === type).length, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(count);
  return received.filter((e) => e.type === type);
}

/** A person signed in through the Frontend API with `orgId` active, and their session token. */
async function signedInWith(email: string, orgId: string) {
  const browser = frontendClient(emu.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: TEAM_PASSWORD });
  expect(signIn.body.response.status).toBe("complete");
  const sessionId = signIn.body.response.created_session_id as string;
  const touched = await browser("POST", `/v1/client/sessions/${sessionId}/touch`, { active_organization_id: orgId });
  expect(touched.status).toBe(200);
  const token = await browser("POST", `/v1/client/sessions/${sessionId}/tokens`);
  return { browser, jwt: token.body.jwt as string };
}

describe("roles and permissions through @clerk/backend 3 (Core 3)", () => {
  it("creates, finds, changes and deletes custom permissions and roles; system permissions stay as Clerk has them", async () => {
    const read = await core3.organizationPermissions.createOrganizationPermission({
      name: "Read reports",
      key: "org:reports:read",
      description: "See the reports",
    });
    expect(read).toMatchObject({ id: expect.stringMatching(/^perm_/), key: "org:reports:read", name: "Read reports" });
    const list = await core3.organizationPermissions.getOrganizationPermissionList({ limit: 100 });
    expect(list.data.map((p: { key: string }) => p.key)).toEqual(
      expect.arrayContaining(["org:reports:read", "org:sys_memberships:manage", "org:sys_profile:delete"]),
    );
    const found = await core3.organizationPermissions.getOrganizationPermissionList({ query: "reports" });
    expect(found.data.map((p: { id: string }) => p.id)).toEqual([read.id]);
    expect((await core3.organizationPermissions.getOrganizationPermission(read.id)).key).toBe("org:reports:read");
    const renamed = await core3.organizationPermissions.updateOrganizationPermission({
      permissionId: read.id,
      name: "View reports",
    });
    expect(renamed.name).toBe("View reports");

    // Clerk's rules: an org:feature:action key, never org:sys_…, unique; system permissions are not the instance's to change.
    for (const key of ["reports:read", "org:sys_reports:read", "org:reports:read"]) {
      const refused = await emu.bapi("POST", "/v1/organization_permissions", { name: "Bad", key });
      expect(refused.status, key).toBeGreaterThanOrEqual(400);
    }
    const system = list.data.find((p: { key: string }) => p.key === "org:sys_memberships:manage");
    const locked = await emu.bapi("DELETE", `/v1/organization_permissions/${system.id}`);
    expect(locked.status).toBe(403);

    const manage = await core3.organizationPermissions.createOrganizationPermission({
      name: "Manage reports",
      key: "org:reports:manage",
    });
    const role = await core3.organizationRoles.createOrganizationRole({
      name: "Analyst",
      key: "org:analyst",
      description: "Reads the reports",
      permissions: [read.id],
    });
    expect(role).toMatchObject({ key: "org:analyst", name: "Analyst", description: "Reads the reports" });
    expect(role.permissions.map((p: { key: string }) => p.key)).toEqual(["org:reports:read"]);
    const withManage = await core3.organizationRoles.assignPermissionToOrganizationRole({
      organizationRoleId: role.id,
      permissionId: manage.id,
    });
    expect(withManage.permissions.map((p: { key: string }) => p.key)).toEqual([
      "org:reports:read",
      "org:reports:manage",
    ]);
    const twice = await emu.bapi("POST", `/v1/organization_roles/${role.id}/permissions/${manage.id}`);
    expect(twice.status).toBe(409);
    const without = await core3.organizationRoles.removePermissionFromOrganizationRole({
      organizationRoleId: role.id,
      permissionId: manage.id,
    });
    expect(without.permissions.map((p: { key: string }) => p.key)).toEqual(["org:reports:read"]);
    const updated = await core3.organizationRoles.updateOrganizationRole({
      organizationRoleId: role.id,
      name: "Report analyst",
    });
    expect(updated.name).toBe("Report analyst");
    expect((await core3.organizationRoles.getOrganizationRole(role.id)).name).toBe("Report analyst");
    const roles = await core3.organizationRoles.getOrganizationRoleList({ orderBy: "+created_at" });
    expect(roles.data.map((r: { key: string }) => r.key)).toEqual(["org:admin", "org:member", "org:analyst"]);
    expect((await core3.organizationRoles.getOrganizationRoleList({ query: "analyst" })).totalCount).toBe(1);
    // Clerk's creator role and default role cannot be deleted.
    for (const builtIn of roles.data.filter((r: { key: string }) => r.key !== "org:analyst")) {
      const refused = await emu.bapi("DELETE", `/v1/organization_roles/${builtIn.id}`);
      expect([refused.status, errorCode(refused)], builtIn.key).toEqual([422, "organization_role_in_use"]);
    }
    const badKey = await emu.bapi("POST", "/v1/organization_roles", { name: "Bad", key: "analyst" });
    expect([badKey.status, errorCode(badKey)]).toEqual([422, "form_param_format_invalid"]);

    // A deleted permission leaves the roles that had it; an unused role can be deleted.
    await core3.organizationPermissions.deleteOrganizationPermission(manage.id);
    expect(await core3.organizationRoles.deleteOrganizationRole(role.id)).toMatchObject({ id: role.id, deleted: true });
    expect((await emu.bapi("GET", `/v1/organization_roles/${role.id}`)).status).toBe(404);

    // Clerk's role.* and permission.* webhooks say so.
    expect((await eventsOf("permission.created", 2)).map((e) => e.data.key)).toEqual([
      "org:reports:read",
      "org:reports:manage",
    ]);
    expect((await eventsOf("permission.updated", 1))[0]!.data.name).toBe("View reports");
    expect((await eventsOf("permission.deleted", 1))[0]!.data).toMatchObject({ id: manage.id, deleted: true });
    expect((await eventsOf("role.created", 1))[0]!.data).toMatchObject({ key: "org:analyst" });
    expect((await eventsOf("role.updated", 1)).length).toBeGreaterThanOrEqual(1);
    expect((await eventsOf("role.deleted", 1))[0]!.data).toMatchObject({ id: role.id, deleted: true });
  });
});

describe("a custom role given to a member", () => {
  let viewer: { id: string; key: string };
  let reportsRead: { id: string };
  let team: { orgId: string; admin: { id: string; email: string }; member: { id: string; email: string } };

  beforeAll(async () => {
    reportsRead = await core3.organizationPermissions.createOrganizationPermission({
      name: "Read invoices",
      key: "org:invoices:read",
    });
    viewer = await core3.organizationRoles.createOrganizationRole({
      name: "Viewer",
      key: "org:viewer",
      permissions: [reportsRead.id],
    });
    const admin = await newPerson(emu.bapi, "boss");
    const member = await newPerson(emu.bapi, "viewer");
    const org = await core2.organizations.createOrganization({ name: "Viewers Inc", createdBy: admin.id });
    team = { orgId: org.id, admin, member };
  });

  it("is given and changed by both SDK lines, in memberships and invitations; a role in use cannot be deleted", async () => {
    const made = await core2.organizations.createOrganizationMembership({
      organizationId: team.orgId,
      userId: team.member.id,
      role: "org:viewer",
    });
    expect(made.role).toBe("org:viewer");
    expect(made.permissions).toEqual(["org:invoices:read"]);
    const asMember = await core3.organizations.updateOrganizationMembership({
      organizationId: team.orgId,
      userId: team.member.id,
      role: "org:member",
    });
    expect(asMember.role).toBe("org:member");
    const back = await core3.organizations.updateOrganizationMembership({
      organizationId: team.orgId,
      userId: team.member.id,
      role: "org:viewer",
    });
    expect([back.role, back.permissions]).toEqual(["org:viewer", ["org:invoices:read"]]);
    const listed = await core2.organizations.getOrganizationMembershipList({
      organizationId: team.orgId,
      role: ["org:viewer"],
    });
    expect(listed.data.map((m: { publicUserData: { userId: string } }) => m.publicUserData.userId)).toEqual([
      team.member.id,
    ]);

    const invited = await core2.organizations.createOrganizationInvitation({
      organizationId: team.orgId,
      emailAddress: "invited-viewer@example.com",
      role: "org:viewer",
      inviterUserId: team.admin.id,
    });
    expect(invited.role).toBe("org:viewer");
    const unknown = await emu.bapi("POST", `/v1/organizations/${team.orgId}/invitations`, {
      email_address: "nobody@example.com",
      role: "org:nonexistent",
    });
    expect([unknown.status, errorCode(unknown)]).toEqual([422, "form_param_value_invalid"]);

    const inUse = await emu.bapi("DELETE", `/v1/organization_roles/${viewer.id}`);
    expect([inUse.status, errorCode(inUse)]).toEqual([422, "organization_role_in_use"]);
    await core3.organizations.revokeOrganizationInvitation({ organizationId: team.orgId, invitationId: invited.id });
  });

  it("is in the session token with its custom permissions only, read by @clerk/backend 2 and 3", async () => {
    const { jwt } = await signedInWith(team.member.email, team.orgId);
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, any>;
    expect(payload).toMatchObject({ v: 2, fea: "o:invoices", o: { id: team.orgId, rol: "viewer", per: "read" } });
    const options = { publishableKey: emulatorPublishableKey(), jwtKey: emu.emulator.key.publicKeyPem };
    for (const client of [
      createCore2Client({ secretKey: SECRET_KEY, ...options }),
      createCore3Client({ secretKey: SECRET_KEY, ...options }),
    ]) {
      const state = await client.authenticateRequest(
        new Request("http://127.0.0.1:3000/", { headers: { Authorization: `Bearer ${jwt}` } }),
      );
      expect(state.status, String(state.reason)).toBe("signed-in");
      const auth = state.toAuth();
      expect(auth).toMatchObject({ orgId: team.orgId, orgRole: "org:viewer", orgPermissions: ["org:invoices:read"] });
      expect(auth.has({ role: "org:viewer" })).toBe(true);
      expect(auth.has({ permission: "org:invoices:read" })).toBe(true);
      expect(auth.has({ permission: "org:sys_memberships:read" })).toBe(false);
    }
  });

  it("is offered by the Frontend API's roles list, and checked by its system permissions, not its name", async () => {
    const { browser } = await signedInWith(team.member.email, team.orgId);
    const roles = await browser("GET", `/v1/organizations/${team.orgId}/roles`);
    expect(roles.status).toBe(200);
    const viewerRole = roles.body.response.data.find((r: { key: string }) => r.key === "org:viewer");
    expect(viewerRole).toMatchObject({ name: "Viewer", permissions: [{ key: "org:invoices:read", type: "user" }] });

    // The viewer has no system permission: Clerk's 403 for reading members, inviting, renaming.
    const forbidden = [
      await browser("GET", `/v1/organizations/${team.orgId}/memberships`),
      await browser("POST", `/v1/organizations/${team.orgId}/invitations`, {
        email_address: "friend@example.com",
        role: "org:member",
      }),
      await browser("PATCH", `/v1/organizations/${team.orgId}`, { name: "Renamed" }),
      await browser("DELETE", `/v1/organizations/${team.orgId}/memberships/${team.admin.id}`),
    ];
    for (const r of forbidden) expect([r.status, errorCode(r)]).toEqual([403, "missing_organization_permission"]);

    // Given Clerk's member-management permissions, the same role may read, invite and remove.
    const permissions = await core3.organizationPermissions.getOrganizationPermissionList({ query: "sys_memberships" });
    for (const p of permissions.data) {
      await core3.organizationRoles.assignPermissionToOrganizationRole({
        organizationRoleId: viewer.id,
        permissionId: p.id,
      });
    }
    const members = await browser("GET", `/v1/organizations/${team.orgId}/memberships`);
    expect(members.status).toBe(200);
    const mine = members.body.response.data.find((m: { role: string }) => m.role === "org:viewer");
    expect(mine).toMatchObject({ role_name: "Viewer" });
    expect(mine.permissions).toEqual(
      expect.arrayContaining(["org:sys_memberships:read", "org:sys_memberships:manage", "org:invoices:read"]),
    );
    const invite = await browser("POST", `/v1/organizations/${team.orgId}/invitations`, {
      email_address: "friend@example.com",
      role: "org:viewer",
    });
    expect([invite.status, invite.body.response?.role]).toEqual([200, "org:viewer"]);
    // Still not the organization's profile: that is org:sys_profile:manage.
    const rename = await browser("PATCH", `/v1/organizations/${team.orgId}`, { name: "Renamed" });
    expect(rename.status).toBe(403);

    // A plain member (org:member: reading members only) may not invite.
    const plain = await newPerson(emu.bapi, "plain");
    await core2.organizations.createOrganizationMembership({
      organizationId: team.orgId,
      userId: plain.id,
      role: "org:member",
    });
    const asPlain = (await signedInWith(plain.email, team.orgId)).browser;
    expect((await asPlain("GET", `/v1/organizations/${team.orgId}/memberships`)).status).toBe(200);
    const refused = await asPlain("POST", `/v1/organizations/${team.orgId}/invitations`, {
      email_address: "other@example.com",
      role: "org:member",
    });
    expect(refused.status).toBe(403);
    // The viewer, now a manager, removes them.
    const removed = await browser("DELETE", `/v1/organizations/${team.orgId}/memberships/${plain.id}`);
    expect(removed.status).toBe(200);
  });
});

describe("session tokens of version 1", () => {
  it("carry a custom role's permissions in org_permissions, system ones left out", async () => {
    const v1 = await startInProcessEmulator({ secretKey: SECRET_KEY, sessionTokenVersion: 1 });
    try {
      const perm = await v1.bapi("POST", "/v1/organization_permissions", { name: "Export", key: "org:data:export" });
      const readMembers = await v1.bapi("GET", "/v1/organization_permissions?query=org:sys_memberships:read");
      const role = await v1.bapi("POST", "/v1/organization_roles", {
        name: "Exporter",
        key: "org:exporter",
        permissions: [perm.body.id, readMembers.body.data[0].id],
      });
      expect(role.status).toBe(200);
      const member = await v1.bapi("POST", "/v1/organizations/org_seed_difference/memberships", {
        user_id: "user_seed_alan",
        role: "org:exporter",
      });
      expect(member.status).toBe(200);
      const session = await fetch(`${v1.origin}/__clerk/_emulator/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ userId: "user_seed_alan", organizationId: "org_seed_difference" }),
      });
      const { sessionToken } = (await session.json()) as { sessionToken: string };
      const client = createCore2Client({
        secretKey: SECRET_KEY,
        publishableKey: emulatorPublishableKey(),
        jwtKey: v1.emulator.key.publicKeyPem,
      });
      const state = await client.authenticateRequest(
        new Request("http://127.0.0.1:3000/", { headers: { Authorization: `Bearer ${sessionToken}` } }),
      );
      expect(state.toAuth()).toMatchObject({ orgRole: "org:exporter", orgPermissions: ["org:data:export"] });
      const claims = JSON.parse(Buffer.from(sessionToken.split(".")[1]!, "base64url").toString());
      expect(claims.org_permissions).toEqual(["org:data:export"]);
    } finally {
      await v1.close();
    }
  });
});
