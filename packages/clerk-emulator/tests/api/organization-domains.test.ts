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
import { webhookBreaches } from "../../contract";
import { loadCore3Backend } from "../support/clerk-sdks";

// Issue 49: organizations' verified domains were always empty. They are now
// kept and verified (by the Backend API, or an admin's email code), and an
// automatic domain enrolls whoever has a verified address on it: a pending
// invitation, or a suggestion that becomes a membership request. Each call
// goes through the real @clerk/backend 2 and 3 where they have a method, and
// every answer and webhook is checked against Clerk's published specs.
type Client = ReturnType<typeof createCore2Client>;
const SECRET = newWebhookSecret();
type Received = { type: string; data: Record<string, any>; body: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
const received: Received[] = [];
let sink: WebhookSink;
let emu: InProcessEmulator;
let sdks: [string, Client][];
let counter = 0;
/** A fresh domain name per call: tests share one emulator. */
const domainName = () => `d${++counter}x${Date.now().toString(36)}.example.org`;

beforeAll(async () => {
  sink = await startWebhookSink(SECRET, (e) => received.push(e));
  const secretKey = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
  emu = await startInProcessEmulator({
    secretKey,
    webhooks: { url: sink.url, secret: SECRET },
  });
  const apiUrl = `${emu.origin}/__clerk/api`;
  const core3 = await loadCore3Backend<{ createClerkClient: typeof createCore2Client }>();
  sdks = [
    ["@clerk/backend 2", createCore2Client({ secretKey, apiUrl })],
    ["@clerk/backend 3", core3.createClerkClient({ secretKey, apiUrl })],
  ];
});

afterAll(async () => {
  await emu?.close();
  await sink?.close();
});

// The events this slice sends keep Clerk's webhooks spec (other events are other tests' to check).
afterEach(() => {
  const mine = received.filter((e) => /^(organizationDomain|waitlistEntry|email)\./.test(e.type));
  expect(mine.flatMap((e) => webhookBreaches(e.body as { type: string }))).toEqual([]);
});

async function enableDomains(modes = ["automatic_invitation", "automatic_suggestion"]) {
  const settings = await emu.bapi("PATCH", "/v1/instance/organization_settings", {
    domains_enabled: true,
    domains_enrollment_modes: modes,
  });
  expect(settings.status).toBe(200);
}

async function newOrg(adminId: string) {
  const org = await emu.bapi("POST", "/v1/organizations", { name: `Org ${++counter}`, created_by: adminId });
  expect(org.status).toBe(200);
  return org.body.id as string;
}

/** A person signed in in a browser of their own. */
async function signedIn(email: string) {
  const browser = frontendClient(emu.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: TEAM_PASSWORD });
  expect(signIn.body.response.status).toBe("complete");
  return browser;
}

describe("organization domains through the Backend API", () => {
  it("refuses a domain while the instance has domains off, and says so in the environment", async () => {
    const admin = await newPerson(emu.bapi, "off");
    const orgId = await newOrg(admin.id);
    const env = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(env.body.organization_settings.domains.enabled).toBe(false);
    const refused = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, { name: domainName() });
    expect([refused.status, errorCode(refused)]).toEqual([403, "organization_domains_not_enabled"]);
  });

  it("creates, lists, changes and deletes domains with both SDKs", async () => {
    await enableDomains();
    const env = await frontendClient(emu.origin)("GET", "/v1/environment");
    expect(env.body.organization_settings.domains).toMatchObject({
      enabled: true,
      enrollment_modes: ["manual_invitation", "automatic_invitation", "automatic_suggestion"],
    });
    for (const [name, clerk] of sdks) {
      const admin = await newPerson(emu.bapi, "sdk");
      const orgId = await newOrg(admin.id);
      const domainNameGiven = domainName();
      const created = await clerk.organizations.createOrganizationDomain({
        organizationId: orgId,
        name: domainNameGiven,
        enrollmentMode: "manual_invitation",
      });
      // Neither SDK has a resource class for a domain (jsonToObject's default): the answer comes back as Clerk's JSON.
      expect(created, name).toMatchObject({
        object: "organization_domain",
        name: domainNameGiven,
        organization_id: orgId,
        enrollment_mode: "manual_invitation",
        // @clerk/backend sends verified: true unless told otherwise.
        verification: { status: "verified" },
      });
      const updated = await clerk.organizations.updateOrganizationDomain({
        organizationId: orgId,
        domainId: created.id,
        enrollmentMode: "automatic_suggestion",
      });
      expect((updated as unknown as { enrollment_mode: string }).enrollment_mode, name).toBe("automatic_suggestion");
      const list = await clerk.organizations.getOrganizationDomainList({ organizationId: orgId });
      expect(list.totalCount, name).toBe(1);
      expect(
        list.data.map((d) => (d as unknown as { enrollment_mode: string }).enrollment_mode),
        name,
      ).toEqual(["automatic_suggestion"]);
      // The same name is not another organization's to take.
      const other = await newOrg(admin.id);
      const taken = await emu.bapi("POST", `/v1/organizations/${other}/domains`, { name: domainNameGiven });
      expect([taken.status, errorCode(taken)], name).toEqual([400, "organization_domain_already_exists"]);
      await clerk.organizations.deleteOrganizationDomain({ organizationId: orgId, domainId: created.id });
      const after = await clerk.organizations.getOrganizationDomainList({ organizationId: orgId });
      expect(after.totalCount, name).toBe(0);
    }
  });

  it("filters the instance's domains, marks ownership, and refuses what Clerk refuses", async () => {
    await enableDomains();
    const admin = await newPerson(emu.bapi, "filters");
    const orgId = await newOrg(admin.id);
    const [a, b] = [domainName(), domainName()];
    const first = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, {
      name: a,
      enrollment_mode: "manual_invitation",
    });
    const second = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, { name: b, verified: false });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.affiliation_verification).toBeNull();
    const unverified = await emu.bapi("GET", `/v1/organization_domains?organization_id=${orgId}&verified=false`);
    expect(unverified.body.data.map((d: { name: string }) => d.name)).toEqual([b]);
    const byName = await emu.bapi("GET", `/v1/organization_domains?domains=${a}`);
    expect(byName.body.total_count).toBe(1);
    const notManual = await emu.bapi(
      "GET",
      `/v1/organization_domains?organization_id=${orgId}&enrollment_mode=-manual_invitation`,
    );
    expect(notManual.body.total_count).toBe(0);
    // An unverified domain enrolls nobody.
    const automatic = await emu.bapi("PATCH", `/v1/organizations/${orgId}/domains/${second.body.id}`, {
      enrollment_mode: "automatic_invitation",
    });
    expect([automatic.status, errorCode(automatic)]).toEqual([400, "organization_domain_not_verified"]);
    const owned = await emu.bapi("POST", `/v1/organizations/${orgId}/domains/${first.body.id}/verify_ownership`);
    expect(owned.body.ownership_verification).toMatchObject({ status: "verified" });
    // A mode the instance has not turned on is refused.
    await enableDomains(["automatic_invitation"]);
    const suggesting = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, {
      name: domainName(),
      enrollment_mode: "automatic_suggestion",
    });
    expect([suggesting.status, errorCode(suggesting)]).toEqual([
      403,
      "organization_domain_enrollment_mode_not_enabled",
    ]);
    await enableDomains();
    const common = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, { name: "gmail.com" });
    expect(errorCode(common)).toBe("organization_domain_common");
    const badMode = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, {
      name: domainName(),
      enrollment_mode: "sometimes",
    });
    expect([badMode.status, errorCode(badMode)]).toEqual([422, "form_param_value_invalid"]);
  });
});

describe("what an automatic domain does", () => {
  it("automatic_invitation: people with a verified address on it, now and later, get a pending invitation they can accept", async () => {
    await enableDomains();
    const admin = await newPerson(emu.bapi, "inviter");
    const orgId = await newOrg(admin.id);
    const name = domainName();
    const before = await emu.bapi("POST", "/v1/users", { email_address: [`early@${name}`], password: TEAM_PASSWORD });
    const domain = await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, {
      name,
      enrollment_mode: "automatic_invitation",
    });
    expect(domain.status).toBe(200);
    const after = await emu.bapi("POST", "/v1/users", { email_address: [`late@${name}`], password: TEAM_PASSWORD });
    for (const user of [before.body, after.body]) {
      const invitations = await emu.bapi("GET", `/v1/users/${user.id}/organization_invitations?status=pending`);
      expect(
        invitations.body.data.map((i: { organization_id: string; role: string }) => [i.organization_id, i.role]),
      ).toEqual([[orgId, "org:member"]]);
    }
    const counted = await emu.bapi("GET", `/v1/organizations/${orgId}/domains`);
    expect(counted.body.data[0].total_pending_invitations).toBe(2);

    // The newcomer sees it in their organization switcher and accepts it.
    const browser = await signedIn(`late@${name}`);
    const mine = await browser("GET", "/v1/me/organization_invitations?status=pending");
    expect(mine.body.response.data).toHaveLength(1);
    const accepted = await browser("POST", `/v1/me/organization_invitations/${mine.body.response.data[0].id}/accept`);
    expect(accepted.status).toBe(200);
    const members = await emu.bapi("GET", `/v1/organizations/${orgId}/memberships?user_id=${after.body.id}`);
    expect(members.body.data.map((m: { role: string }) => m.role)).toEqual(["org:member"]);

    // The instance's default role for domains is the role invitations carry.
    await emu.bapi("PATCH", "/v1/instance/organization_settings", { domains_default_role_id: "role_admin" });
    const boss = await emu.bapi("POST", "/v1/users", { email_address: [`boss@${name}`], password: TEAM_PASSWORD });
    const bossInvitations = await emu.bapi("GET", `/v1/users/${boss.body.id}/organization_invitations`);
    expect(bossInvitations.body.data.map((i: { role: string }) => i.role)).toEqual(["org:admin"]);
    await emu.bapi("PATCH", "/v1/instance/organization_settings", { domains_default_role_id: "role_member" });

    // Switching to manual with delete_pending revokes the invitation still pending (an admin in the browser).
    const adminBrowser = await signedIn(admin.email);
    const manual = await adminBrowser(
      "POST",
      `/v1/organizations/${orgId}/domains/${domain.body.id}/update_enrollment_mode`,
      {
        enrollment_mode: "manual_invitation",
        delete_pending: "true",
      },
    );
    expect(manual.body.response).toMatchObject({ enrollment_mode: "manual_invitation", total_pending_invitations: 0 });
    const revoked = await emu.bapi("GET", `/v1/users/${before.body.id}/organization_invitations?status=revoked`);
    expect(revoked.body.data).toHaveLength(1);
  });

  it("automatic_suggestion: a suggestion the person accepts becomes a membership request the admin sees", async () => {
    await enableDomains();
    const admin = await newPerson(emu.bapi, "suggester");
    const orgId = await newOrg(admin.id);
    const name = domainName();
    await emu.bapi("POST", `/v1/organizations/${orgId}/domains`, { name, enrollment_mode: "automatic_suggestion" });
    const person = await emu.bapi("POST", "/v1/users", { email_address: [`someone@${name}`], password: TEAM_PASSWORD });
    expect(person.status).toBe(200);
    const browser = await signedIn(`someone@${name}`);
    const suggestions = await browser("GET", "/v1/me/organization_suggestions");
    expect(suggestions.body.response.data).toMatchObject([
      { object: "organization_suggestion", status: "pending", public_organization_data: { id: orgId } },
    ]);
    const suggestion = suggestions.body.response.data[0];
    const accepted = await browser("POST", `/v1/me/organization_suggestions/${suggestion.id}/accept`);
    expect(accepted.body.response.status).toBe("accepted");
    const pendingOnly = await browser("GET", "/v1/me/organization_suggestions?status=pending");
    expect(pendingOnly.body.response.data).toEqual([]);
    const both = await browser("GET", "/v1/me/organization_suggestions?status=pending,accepted");
    expect(both.body.response.data.map((s: { id: string }) => s.id)).toEqual([suggestion.id]);
    const again = await browser("POST", `/v1/me/organization_suggestions/${suggestion.id}/accept`);
    expect(errorCode(again)).toBe("organization_suggestion_already_accepted");

    const adminBrowser = await signedIn(admin.email);
    const requests = await adminBrowser("GET", `/v1/organizations/${orgId}/membership_requests?status=pending`);
    expect(requests.body.response.data).toMatchObject([
      { object: "organization_membership_request", status: "pending", public_user_data: { user_id: person.body.id } },
    ]);
    // Not a member yet: the admin decides.
    const members = await emu.bapi("GET", `/v1/organizations/${orgId}/memberships?user_id=${person.body.id}`);
    expect(members.body.data).toEqual([]);
  });
});

describe("an admin verifying a domain in the browser", () => {
  it("adds a domain, verifies it with the code sent to an address on it, and deletes it; organizationDomain.* webhooks follow", async () => {
    await enableDomains();
    const admin = await newPerson(emu.bapi, "verifier");
    const orgId = await newOrg(admin.id);
    const browser = await signedIn(admin.email);
    const name = domainName();
    const from = received.length;
    const added = await browser("POST", `/v1/organizations/${orgId}/domains`, { name });
    expect(added.body.response).toMatchObject({ name, verification: null, enrollment_mode: "manual_invitation" });
    const domainId = added.body.response.id as string;
    const base = `/v1/organizations/${orgId}/domains/${domainId}`;

    const elsewhere = await browser("POST", `${base}/prepare_affiliation_verification`, {
      affiliation_email_address: "it@elsewhere.example.com",
    });
    expect(errorCode(elsewhere)).toBe("organization_domain_mismatch");
    const prepared = await browser("POST", `${base}/prepare_affiliation_verification`, {
      affiliation_email_address: `it@${name}`,
    });
    expect(prepared.body.response).toMatchObject({
      affiliation_email_address: `it@${name}`,
      verification: { status: "unverified" },
    });
    const wrong = await browser("POST", `${base}/attempt_affiliation_verification`, { code: "000000" });
    expect([wrong.status, errorCode(wrong)]).toEqual([422, "form_code_incorrect"]);
    const verified = await browser("POST", `${base}/attempt_affiliation_verification`, { code: "424242" });
    expect(verified.body.response.verification).toMatchObject({ status: "verified", strategy: "email_code" });
    const read = await browser("GET", base);
    expect(read.body.response.affiliation_verification.status).toBe("verified");

    // A plain member may not read or manage domains.
    const member = await newPerson(emu.bapi, "plain");
    await emu.bapi("POST", `/v1/organizations/${orgId}/memberships`, { user_id: member.id, role: "org:member" });
    const memberBrowser = await signedIn(member.email);
    const forbidden = await memberBrowser("GET", `/v1/organizations/${orgId}/domains`);
    expect([forbidden.status, errorCode(forbidden)]).toEqual([403, "missing_organization_permission"]);

    const deleted = await browser("DELETE", base);
    expect(deleted.body.response).toMatchObject({ object: "organization_domain", id: domainId, deleted: true });

    await expect
      .poll(
        () =>
          received
            .slice(from)
            .filter((e) => e.type.startsWith("organizationDomain."))
            .map((e) => e.type),
        {
          timeout: 10_000,
        },
      )
      .toEqual(
        expect.arrayContaining([
          "organizationDomain.created",
          "organizationDomain.updated",
          "organizationDomain.deleted",
        ]),
      );
    const code = received.slice(from).find((e) => e.type === "email.created" && e.data.slug === "affiliation_code");
    expect(code?.data).toMatchObject({ to_email_address: `it@${name}`, data: { otp_code: "424242" } });
  });
});
