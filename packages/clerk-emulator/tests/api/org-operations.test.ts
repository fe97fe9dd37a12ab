import { randomBytes } from "node:crypto";
import { createClerkClient as createCore2Client } from "@clerk/backend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  errorCode,
  frontendClient,
  newPerson,
  newTeam,
  startInProcessEmulator,
  TEAM_PASSWORD,
  uniqueEmail,
  type InProcessEmulator,
} from "../../testing";
import { loadCore3Backend } from "../support/clerk-sdks";

// Issue 49: the organization operations the emulator did not answer — a
// membership's metadata, the instance-wide membership and invitation lists,
// bulk invitations, pending invitations, logos through the Backend API, adding
// a member and answering membership requests through the Frontend API —
// called as apps call them, through @clerk/backend 2 and 3 where they have a
// method, each answer checked against Clerk's spec by the contract check.

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDKs' resources and Clerk's JSON, read by each test */
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
let emu: InProcessEmulator;
let sdks: [string, any][];

beforeAll(async () => {
  emu = await startInProcessEmulator({ secretKey: SECRET_KEY });
  const apiUrl = `${emu.origin}/__clerk/api`;
  const core3 = (await loadCore3Backend<{ createClerkClient: any }>()).createClerkClient;
  sdks = [
    ["@clerk/backend 2", createCore2Client({ secretKey: SECRET_KEY, apiUrl })],
    ["@clerk/backend 3", core3({ secretKey: SECRET_KEY, apiUrl })],
  ];
});

afterAll(async () => {
  await emu?.close();
});

describe("a membership's metadata", () => {
  it("is set at creation and deep-merged by updateOrganizationMembershipMetadata, in both SDK lines", async () => {
    const { org, members } = await newTeam(emu.bapi, { members: 0 });
    const person = await newPerson(emu.bapi, "meta");
    const made = await emu.bapi("POST", `/v1/organizations/${org.id}/memberships`, {
      user_id: person.id,
      role: "org:member",
      public_metadata: { team: { name: "core", size: 3 } },
      private_metadata: { note: "first" },
    });
    expect(made.body).toMatchObject({
      public_metadata: { team: { name: "core" } },
      private_metadata: { note: "first" },
    });
    expect(members).toEqual([]);
    for (const [name, clerk] of sdks) {
      const updated = await clerk.organizations.updateOrganizationMembershipMetadata({
        organizationId: org.id,
        userId: person.id,
        publicMetadata: { team: { size: name.endsWith("2") ? 4 : 5 }, sdk: name },
        privateMetadata: { note: null, seen: true },
      });
      expect(updated.publicMetadata, name).toEqual({
        team: { name: "core", size: name.endsWith("2") ? 4 : 5 },
        sdk: name,
      });
      expect(updated.privateMetadata, name).toEqual({ seen: true });
    }
    const listed = await sdks[0]![1].organizations.getOrganizationMembershipList({ organizationId: org.id });
    const mine = listed.data.find((m: any) => m.publicUserData.userId === person.id);
    expect(mine.publicMetadata).toEqual({ team: { name: "core", size: 5 }, sdk: "@clerk/backend 3" });
    const bad = await emu.bapi("PATCH", `/v1/organizations/${org.id}/memberships/${person.id}/metadata`, {
      public_metadata: "[1]",
    });
    expect([bad.status, errorCode(bad)]).toEqual([422, "form_param_format_invalid"]);
    const nobody = await emu.bapi("PATCH", `/v1/organizations/${org.id}/memberships/user_none/metadata`, {
      public_metadata: {},
    });
    expect(nobody.status).toBe(404);
  });
});

describe("instance-wide lists", () => {
  it("getInstanceOrganizationMembershipList: every organization's memberships, in the order asked", async () => {
    const total = (await emu.bapi("GET", "/v1/organization_memberships?limit=1")).body.total_count as number;
    expect(total).toBe(emu.emulator.store.state.memberships.length);
    for (const [name, clerk] of sdks) {
      const newest = await clerk.organizations.getInstanceOrganizationMembershipList({ limit: 500 });
      expect(newest.totalCount, name).toBe(total);
      const times = newest.data.map((m: { createdAt: number }) => m.createdAt);
      expect(times, name).toEqual([...times].sort((a, b) => b - a));
      const byEmail = await clerk.organizations.getInstanceOrganizationMembershipList({
        orderBy: "email_address",
        limit: 3,
      });
      expect(byEmail.data.length, name).toBe(3);
    }
    const refused = await emu.bapi("GET", "/v1/organization_memberships?order_by=colour");
    expect([refused.status, errorCode(refused)]).toEqual([422, "form_param_value_invalid"]);
  });

  it("GET /v1/organization_invitations: every organization's invitations, filtered by status and query", async () => {
    const a = await newTeam(emu.bapi);
    const b = await newTeam(emu.bapi);
    const first = uniqueEmail("wide");
    const second = uniqueEmail("wide");
    const made = await emu.bapi("POST", `/v1/organizations/${a.org.id}/invitations`, {
      email_address: first,
      role: "org:member",
    });
    await emu.bapi("POST", `/v1/organizations/${b.org.id}/invitations`, { email_address: second, role: "org:admin" });
    await emu.bapi("POST", `/v1/organizations/${a.org.id}/invitations/${made.body.id}/revoke`, {});
    const pending = await emu.bapi("GET", `/v1/organization_invitations?status=pending&limit=500`);
    const emails = pending.body.data.map((i: { email_address: string }) => i.email_address);
    expect(emails).toContain(second);
    expect(emails).not.toContain(first);
    const found = await emu.bapi("GET", `/v1/organization_invitations?query=${encodeURIComponent(first)}`);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0]).toMatchObject({
      status: "revoked",
      public_organization_data: { id: a.org.id, name: a.org.name },
    });
    const unknown = await emu.bapi("GET", "/v1/organization_invitations?organization_id=x");
    expect([unknown.status, errorCode(unknown)]).toEqual([422, "form_param_unknown"]);
  });
});

describe("bulk and pending invitations", () => {
  it("createOrganizationInvitationBulk makes all of them or none, in both SDK lines; pending lists them", async () => {
    for (const [name, clerk] of sdks) {
      const { org, admin } = await newTeam(emu.bapi);
      const emails = [uniqueEmail("bulk"), uniqueEmail("bulk")];
      const made = await clerk.organizations.createOrganizationInvitationBulk(
        org.id,
        emails.map((emailAddress) => ({ emailAddress, role: "org:member", inviterUserId: admin.id })),
      );
      expect(
        made.data.map((i: { emailAddress: string }) => i.emailAddress),
        name,
      ).toEqual(emails);
      // One address already invited: Clerk's error, and the other is not invited either.
      const fresh = uniqueEmail("bulk");
      const refused = await emu.bapi("POST", `/v1/organizations/${org.id}/invitations/bulk`, [
        { email_address: fresh, role: "org:member" },
        { email_address: emails[0], role: "org:member" },
      ] as unknown as Record<string, unknown>);
      expect([refused.status, errorCode(refused)], name).toEqual([400, "organization_invitation_not_unique"]);
      const pending = await emu.bapi("GET", `/v1/organizations/${org.id}/invitations/pending`);
      expect(pending.body.data.map((i: { email_address: string }) => i.email_address).sort(), name).toEqual(
        [...emails].sort(),
      );
    }
    const extra = await emu.bapi("POST", "/v1/organizations/org_seed_engines/invitations/bulk", [
      { email_address: uniqueEmail("bulk"), role: "org:member", colour: "teal" },
    ] as unknown as Record<string, unknown>);
    expect([extra.status, errorCode(extra)]).toEqual([422, "form_param_unknown"]);
  });

  it("createInvitationBulk invites several people to the application, in both SDK lines", async () => {
    for (const [name, clerk] of sdks) {
      const emails = [uniqueEmail("app"), uniqueEmail("app")];
      const made = await clerk.invitations.createInvitationBulk(
        emails.map((emailAddress) => ({ emailAddress, notify: false })),
      );
      expect(
        made.map((i: { emailAddress: string }) => i.emailAddress),
        name,
      ).toEqual(emails);
      const again = await emu.bapi("POST", "/v1/invitations/bulk", [{ email_address: emails[1] }] as unknown as Record<
        string,
        unknown
      >);
      expect([again.status, errorCode(again)], name).toEqual([400, "duplicate_record"]);
    }
  });
});

describe("an organization's logo through the Backend API", () => {
  it("updateOrganizationLogo uploads it and deleteOrganizationLogo removes it, in both SDK lines", async () => {
    for (const [name, clerk] of sdks) {
      const { org, admin } = await newTeam(emu.bapi);
      const file = new File([PNG], "logo.png", { type: "image/png" });
      const updated = await clerk.organizations.updateOrganizationLogo(org.id, { file, uploaderUserId: admin.id });
      expect(updated.hasImage, name).toBe(true);
      const image = await fetch(
        updated.imageUrl.startsWith("http") ? updated.imageUrl : `${emu.origin}${updated.imageUrl}`,
      );
      expect([image.status, Buffer.from(await image.arrayBuffer()).equals(PNG)], name).toEqual([200, true]);
      const removed = await clerk.organizations.deleteOrganizationLogo(org.id);
      expect(removed.hasImage, name).toBe(false);
      const again = await emu.bapi("DELETE", `/v1/organizations/${org.id}/logo`);
      expect(again.status, name).toBe(404);
    }
  });
});

describe("the Frontend API's member management", () => {
  /** The team's admin signed in through the Frontend API, with the organization active. */
  async function adminBrowser(email: string) {
    const browser = frontendClient(emu.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: TEAM_PASSWORD });
    expect(signIn.body.response.status).toBe("complete");
    return browser;
  }

  it("adds someone of the instance directly (organization.addMember), admins only", async () => {
    const { org, admin, members } = await newTeam(emu.bapi, { members: 1 });
    const newcomer = await newPerson(emu.bapi, "newcomer");
    const browser = await adminBrowser(admin.email);
    const added = await browser("POST", `/v1/organizations/${org.id}/memberships`, {
      user_id: newcomer.id,
      role: "org:member",
    });
    expect(added.status).toBe(200);
    expect(added.body.response).toMatchObject({ role: "org:member", public_user_data: { user_id: newcomer.id } });
    const twice = await browser("POST", `/v1/organizations/${org.id}/memberships`, {
      user_id: newcomer.id,
      role: "org:member",
    });
    expect([twice.status, errorCode(twice)]).toEqual([400, "already_a_member_in_organization"]);
    const asMember = await adminBrowser(members[0]!.email);
    const refused = await asMember("POST", `/v1/organizations/${org.id}/memberships`, {
      user_id: (await newPerson(emu.bapi, "other")).id,
      role: "org:member",
    });
    expect([refused.status, errorCode(refused)]).toEqual([403, "missing_organization_permission"]);
  });

  it("searches the members list (`query`) and filters it by role, as OrganizationProfile does", async () => {
    const { org, admin, members } = await newTeam(emu.bapi, { members: 2 });
    const browser = await adminBrowser(admin.email);
    const ids = async (query: string) => {
      const r = await browser("GET", `/v1/organizations/${org.id}/memberships?${query}`);
      expect(r.status, query).toBe(200);
      return r.body.response.data.map((m: any) => m.public_user_data.user_id).sort();
    };
    expect(await ids("role=org:admin")).toEqual([admin.id]);
    expect(await ids("role=org:member")).toEqual(members.map((m) => m.id).sort());
    expect(await ids(`query=${encodeURIComponent(members[1]!.email.toUpperCase())}`)).toEqual([members[1]!.id]);
    expect(await ids("query=Member2")).toEqual([members[1]!.id]);
    expect(await ids("query=nobody-like-this")).toEqual([]);
  });

  it("lists pending invitations (the deprecated /invitations/pending)", async () => {
    const { org, admin } = await newTeam(emu.bapi);
    const browser = await adminBrowser(admin.email);
    const email = uniqueEmail("pending");
    await browser("POST", `/v1/organizations/${org.id}/invitations`, { email_address: email, role: "org:member" });
    const pending = await browser("GET", `/v1/organizations/${org.id}/invitations/pending`);
    expect(pending.status).toBe(200);
    expect(pending.body.response.data.map((i: { email_address: string }) => i.email_address)).toEqual([email]);
  });

  it("accepts and rejects membership requests", async () => {
    const { org, admin } = await newTeam(emu.bapi);
    const [asker, other] = [await newPerson(emu.bapi, "asker"), await newPerson(emu.bapi, "other")];
    const request = async (userId: string) => {
      const res = await fetch(`${emu.origin}/__clerk/_emulator/membership_requests`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ organizationId: org.id, userId }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: string }).id;
    };
    const [accepted, rejected] = [await request(asker.id), await request(other.id)];
    const browser = await adminBrowser(admin.email);
    const listed = await browser("GET", `/v1/organizations/${org.id}/membership_requests?status=pending`);
    expect(listed.body.response.data.map((r: { id: string }) => r.id).sort()).toEqual([accepted, rejected].sort());

    const yes = await browser("POST", `/v1/organizations/${org.id}/membership_requests/${accepted}/accept`);
    expect(yes.body.response).toMatchObject({ status: "accepted", public_user_data: { user_id: asker.id } });
    const no = await browser("POST", `/v1/organizations/${org.id}/membership_requests/${rejected}/reject`);
    expect(no.body.response.status).toBe("rejected");
    const members = await emu.bapi(
      "GET",
      `/v1/organizations/${org.id}/memberships?user_id=${asker.id}&user_id=${other.id}`,
    );
    expect(members.body.data.map((m: any) => [m.public_user_data.user_id, m.role])).toEqual([[asker.id, "org:member"]]);
    const again = await browser("POST", `/v1/organizations/${org.id}/membership_requests/${rejected}/accept`);
    expect(again.status).toBe(400);
    const left = await browser("GET", `/v1/organizations/${org.id}/membership_requests?status=pending`);
    expect(left.body.response.data).toEqual([]);
  });
});
