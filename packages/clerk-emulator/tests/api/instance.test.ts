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
  uniqueEmail,
  type InProcessEmulator,
  newWebhookSecret,
} from "../../testing";
import { webhookBreaches } from "../../contract";
import { loadCore3Backend } from "../support/clerk-sdks";

// Issue 49: the instance-level Backend API (its settings, domains, redirect
// URLs, proxy checks, email templates, the waitlist, the Svix app) answered
// 404. Each is now kept and read back, and does what it does in Clerk where
// the emulator can: the environment clerk-js loads, the origins the handshake
// may return to, new organizations, the emails' `delivered_by_clerk`, whether
// webhooks are sent at all. Through @clerk/backend 2 and 3 where they have a
// method, over HTTP with the secret key otherwise; every answer and webhook is
// checked against Clerk's specs.
type Client = ReturnType<typeof createCore2Client>;
const SECRET = newWebhookSecret();
type Received = { type: string; data: Record<string, any>; body: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
const received: Received[] = [];
let sink: WebhookSink;
let emu: InProcessEmulator;
let sdks: [string, Client][];
let counter = 0;

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

afterEach(() => {
  const mine = received.filter((e) => /^(waitlistEntry|email)\./.test(e.type));
  expect(mine.flatMap((e) => webhookBreaches(e.body as { type: string }))).toEqual([]);
});

const environment = async () => (await frontendClient(emu.origin)("GET", "/v1/environment")).body;

/** Where the handshake sends a browser back to: 307 when allowed, Clerk's 400 otherwise. */
async function handshakeTo(url: string): Promise<number> {
  const res = await frontendClient(emu.origin)("GET", `/v1/client/handshake?redirect_url=${encodeURIComponent(url)}`);
  return res.status;
}

/** The webhooks of `type` received since `from`, once there are `count`. */
async function eventsSince(from: number, type: string, count = 1): Promise<Received[]> {
  const matching = () => received.slice(from).filter((e) => e.type === type);
  await expect.poll(() => matching().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return matching();
}

/** Has the emulator email a sign-in code to a seeded person (slug `verification_code`). */
async function requestSignInCode() {
  const res = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
    identifier: "grace@example.com",
    strategy: "email_code",
  });
  expect(res.status).toBe(200);
}

describe("the instance", () => {
  it("PATCH /v1/instance is kept, read back, and reaches the environment and the handshake's allowed origins", async () => {
    for (const [name, clerk] of sdks) {
      const origin = `https://app${++counter}.example.com`;
      expect(await handshakeTo(`${origin}/dashboard`), name).toBe(400);
      await clerk.instance.update({
        supportEmail: `help${counter}@example.com`,
        allowedOrigins: [origin],
        testMode: true,
      });
      const instance = await clerk.instance.get();
      expect(instance.allowedOrigins, name).toEqual([origin]);
      expect(await handshakeTo(`${origin}/dashboard`), name).toBe(307);
      const env = await environment();
      expect(env.display_config.support_email, name).toBe(`help${counter}@example.com`);
      expect(env.auth_config.test_mode, name).toBe(true);
    }
    const bad = await emu.bapi("PATCH", "/v1/instance", { allowed_origins: ["not an origin"] });
    expect([bad.status, errorCode(bad)]).toEqual([422, "form_param_value_invalid"]);
  });

  it("organization settings: new organizations' limit and creator role, admins' deletion, organizations on or off", async () => {
    for (const [name, clerk] of sdks) {
      const settings = await clerk.instance.updateOrganizationSettings({
        maxAllowedMemberships: 7,
        adminDeleteEnabled: false,
      });
      expect(settings, name).toMatchObject({ maxAllowedMemberships: 7, adminDeleteEnabled: false });
    }
    // Core 3 reads them back with a method of its own.
    const core3Instance = sdks[1]![1].instance as unknown as { getOrganizationSettings(): Promise<unknown> };
    expect(await core3Instance.getOrganizationSettings()).toMatchObject({ maxAllowedMemberships: 7 });
    const read = await emu.bapi("GET", "/v1/instance/organization_settings");
    expect(read.body).toMatchObject({
      max_allowed_memberships: 7,
      admin_delete_enabled: false,
      creator_role: "org:admin",
    });
    const admin = await newPerson(emu.bapi, "settings");
    const org = await emu.bapi("POST", "/v1/organizations", { name: "Limited", created_by: admin.id });
    expect(org.body.max_allowed_memberships).toBe(7);
    const env = await environment();
    expect(env.organization_settings).toMatchObject({ max_allowed_memberships: 7, actions: { admin_delete: false } });

    // The admin may not delete it in the browser while the setting is off.
    const browser = frontendClient(emu.origin);
    await browser("POST", "/v1/client/sign_ins", { identifier: admin.email, password: "team-password-1" });
    const refused = await browser("DELETE", `/v1/organizations/${org.body.id}`);
    expect([refused.status, errorCode(refused)]).toEqual([403, "organization_admin_delete_not_enabled"]);

    // Organizations off: clerk-js hides them, and the Frontend API creates none.
    await emu.bapi("PATCH", "/v1/instance/organization_settings", { enabled: false });
    expect((await environment()).organization_settings.enabled).toBe(false);
    const create = await browser("POST", "/v1/organizations", { name: "Not now" });
    expect([create.status, errorCode(create)]).toEqual([403, "organization_not_enabled_in_instance"]);

    // Slugs off for the instance: the environment says so, and a new organization has none.
    const noSlugs = await emu.bapi("PATCH", "/v1/instance/organization_settings", { slug_disabled: true });
    expect(noSlugs.body.slug_disabled).toBe(true);
    expect((await environment()).organization_settings.slug.disabled).toBe(true);
    const slugless = await emu.bapi("POST", "/v1/organizations", { name: "No Slug Here", created_by: admin.id });
    expect(slugless.body.slug).toBe("");
    await emu.bapi("PATCH", "/v1/instance/organization_settings", { slug_disabled: false });

    const member = await emu.bapi("PATCH", "/v1/instance/organization_settings", { creator_role_id: "role_member" });
    expect(errorCode(member)).toBe("organization_missing_creator_role_permissions");
    const restored = await emu.bapi("PATCH", "/v1/instance/organization_settings", {
      enabled: true,
      admin_delete_enabled: true,
      max_allowed_memberships: 0,
    });
    expect(restored.body).toMatchObject({ enabled: true, admin_delete_enabled: true, max_allowed_memberships: 0 });
    expect((await browser("DELETE", `/v1/organizations/${org.body.id}`)).status).toBe(200);
  });

  it("communication, protect and OAuth application settings are kept and read back", async () => {
    const codes = await emu.bapi("PATCH", "/v1/instance/communication", { blocked_country_codes: ["RU", "KP"] });
    expect(codes.body).toEqual({ object: "instance_communication", blocked_country_codes: ["RU", "KP"] });
    expect((await emu.bapi("GET", "/v1/instance/communication")).body.blocked_country_codes).toEqual(["RU", "KP"]);
    const lower = await emu.bapi("PATCH", "/v1/instance/communication", { blocked_country_codes: ["ru"] });
    expect(errorCode(lower)).toBe("form_param_value_invalid");

    const protect = await emu.bapi("PATCH", "/v1/instance/protect", { rules_enabled: true });
    expect(protect.body).toMatchObject({ rules_enabled: true, specter_enabled: false });
    expect((await emu.bapi("GET", "/v1/instance/protect")).body.rules_enabled).toBe(true);

    const oauth = await emu.bapi("GET", "/v1/instance/oauth_application_settings");
    expect(oauth.body).toMatchObject({
      object: "oauth_application_settings",
      dynamic_oauth_client_registration: false,
    });
    // The emulator is no OAuth provider: a setting of one is refused, not dropped.
    const refused = await emu.bapi("PATCH", "/v1/instance/oauth_application_settings", {
      dynamic_oauth_client_registration: true,
    });
    expect([refused.status, errorCode(refused)]).toEqual([422, "form_param_unknown"]);
  });

  it("a production domain change is accepted (202) and names the primary domain", async () => {
    const changed = await emu.bapi("POST", "/v1/instance/change_domain", { home_url: "https://app.example.com" });
    expect(changed.status).toBe(202);
    const domains = await sdks[0]![1].domains.list();
    expect(domains.data.find((d) => !d.isSatellite)?.name).toBe("app.example.com");
    // What both SDKs' betaFeatures.changeDomain() send (a path Clerk's description does not list).
    for (const [i, [name, clerk]] of sdks.entries()) {
      await clerk.betaFeatures.changeDomain({ homeUrl: `https://core${i + 2}.example.com` });
      const primary = (await clerk.domains.list()).data.find((d) => !d.isSatellite);
      expect(primary?.name, name).toBe(`core${i + 2}.example.com`);
    }
    const beta = await emu.bapi("PUT", "/v1/beta_features/domain", { home_url: "no url" });
    expect([beta.status, errorCode(beta)]).toEqual([422, "form_param_value_invalid"]);
    const settings = await emu.bapi("PATCH", "/v1/beta_features/instance_settings", { test_mode: false });
    expect(settings.body).toMatchObject({ object: "instance_settings" });
    expect((await environment()).auth_config.test_mode).toBe(false);
  });
});

describe("domains, redirect URLs and proxy checks", () => {
  it("satellite domains: added, renamed and deleted with both SDKs; the handshake returns to them", async () => {
    for (const [name, clerk] of sdks) {
      const host = `sat${++counter}.example.net`;
      const added = await clerk.domains.add({ name: host, is_satellite: true });
      expect(added, name).toMatchObject({ name: host, isSatellite: true });
      expect(await handshakeTo(`https://${host}/`), name).toBe(307);
      const renamed = await clerk.domains.update({ domainId: added.id, name: `re${host}` });
      expect(renamed.name, name).toBe(`re${host}`);
      const list = await clerk.domains.list();
      expect(
        list.data.map((d) => d.name),
        name,
      ).toContain(`re${host}`);
      await clerk.domains.delete(added.id);
      expect(await handshakeTo(`https://re${host}/`), name).toBe(400);
    }
    const primary = await emu.bapi("DELETE", "/v1/domains/dmn_emulator");
    expect(errorCode(primary)).toBe("operation_not_allowed_on_primary_domain");
  });

  it("redirect URLs: created, read, listed and deleted with both SDKs; the handshake honours their origins", async () => {
    for (const [name, clerk] of sdks) {
      const url = `https://redirect${++counter}.example.com/callback`;
      const made = await clerk.redirectUrls.createRedirectUrl({ url });
      expect(made.url, name).toBe(url);
      expect((await clerk.redirectUrls.getRedirectUrl(made.id)).url, name).toBe(url);
      // Clerk's description gives this list as an array, which the SDK hands back as it is.
      const list = (await clerk.redirectUrls.getRedirectUrlList()) as unknown as { id: string }[];
      expect(
        list.map((r) => r.id),
        name,
      ).toContain(made.id);
      expect(await handshakeTo(url), name).toBe(307);
      await clerk.redirectUrls.deleteRedirectUrl(made.id);
      expect(await handshakeTo(url), name).toBe(400);
    }
    const http = await emu.bapi("POST", "/v1/redirect_urls", { url: "http://example.com/callback" });
    expect(errorCode(http)).toBe("invalid_redirect_url");
    const app = await emu.bapi("POST", "/v1/redirect_urls", { url: "my-app://oauth-callback" });
    expect(app.status).toBe(200);
  });

  it("a proxy check reaches the emulator through the proxy URL, on loopback only", async () => {
    const proxyUrl = `${emu.origin}/__clerk`;
    for (const [name, clerk] of sdks) {
      const check = await clerk.proxyChecks.verify({ domainId: "dmn_emulator", proxyUrl });
      expect(check, name).toMatchObject({ successful: true, proxyUrl });
    }
    // Nothing answers there as the emulator.
    const nobody = await emu.bapi("POST", "/v1/proxy_checks", {
      domain_id: "dmn_emulator",
      proxy_url: `${emu.origin}/not-the-proxy`,
    });
    expect([nobody.status, errorCode(nobody)]).toEqual([422, "invalid_proxy_configuration"]);
    // A public address is never called.
    const outside = await emu.bapi("POST", "/v1/proxy_checks", {
      domain_id: "dmn_emulator",
      proxy_url: "http://93.184.216.34/__clerk",
    });
    expect([outside.status, errorCode(outside)]).toEqual([422, "invalid_proxy_configuration"]);
    expect(outside.body.errors[0].long_message).toMatch(/not a loopback or private address/);
  });
});

describe("email and SMS templates", () => {
  it("a changed template writes the emails sent, toggle_delivery off shows in email.created, revert restores Clerk's", async () => {
    const list = await emu.bapi("GET", "/v1/templates/email");
    expect(list.body.map((t: { slug: string }) => t.slug)).toContain("verification_code");
    const missing = await emu.bapi("PUT", "/v1/templates/email/verification_code", { body: "<p>No code here</p>" });
    expect(errorCode(missing)).toBe("required_variable_missing");
    const put = await emu.bapi("PUT", "/v1/templates/email/verification_code", {
      subject: "Your {{app.name}} code: {{otp_code}}",
      from_email_name: "security",
    });
    expect(put.body).toMatchObject({ can_revert: true, subject: "Your {{app.name}} code: {{otp_code}}" });
    const preview = await emu.bapi("POST", "/v1/templates/email/verification_code/preview", {});
    expect(preview.body.subject).toBe("Your Clerk emulator code: 424242");

    let from = received.length;
    await requestSignInCode();
    const [changed] = await eventsSince(from, "email.created");
    expect(changed!.data).toMatchObject({
      subject: "Your Clerk emulator code: 424242",
      from_email_name: "security",
      delivered_by_clerk: true,
    });

    const off = await emu.bapi("POST", "/v1/templates/email/verification_code/toggle_delivery", {
      delivered_by_clerk: false,
    });
    expect(off.body.delivered_by_clerk).toBe(false);
    from = received.length;
    await requestSignInCode();
    const [undelivered] = await eventsSince(from, "email.created");
    expect(undelivered!.data.delivered_by_clerk).toBe(false);

    const reverted = await emu.bapi("POST", "/v1/templates/email/verification_code/revert");
    expect(reverted.body).toMatchObject({ can_revert: false, delivered_by_clerk: true });
    from = received.length;
    await requestSignInCode();
    const [restored] = await eventsSince(from, "email.created");
    expect(restored!.data).toMatchObject({ subject: "424242 is your verification code", delivered_by_clerk: true });
    const again = await emu.bapi("POST", "/v1/templates/email/verification_code/revert");
    expect(errorCode(again)).toBe("template_revert_error");
    expect(errorCode(await emu.bapi("GET", "/v1/templates/fax"))).toBe("template_type_unsupported");
    expect((await emu.bapi("GET", "/v1/templates/sms/verification_code")).body.template_type).toBe("sms");
  });
});

describe("the waitlist", () => {
  it("joined in the browser and through both SDKs, invited (the invitation signs up, completing it) or rejected", async () => {
    const from = received.length;
    const joined = uniqueEmail("waiting");
    const browserJoin = await frontendClient(emu.origin)("POST", "/v1/waitlist", { email_address: joined });
    expect(browserJoin.body).toMatchObject({ object: "waitlist_entry" });
    const confirmation = (await eventsSince(from, "email.created")).find((e) => e.data.to_email_address === joined);
    expect(confirmation?.data.slug).toBe("waitlist_confirmation");

    for (const [name, clerk] of sdks) {
      const email = uniqueEmail("sdk-waiting");
      const entry = await clerk.waitlistEntries.create({ emailAddress: email, notify: false });
      expect(entry, name).toMatchObject({ emailAddress: email, status: "pending" });
      const pending = await clerk.waitlistEntries.list({ status: "pending", query: email });
      expect(
        pending.data.map((e) => e.id),
        name,
      ).toEqual([entry.id]);
      const rejected = await clerk.waitlistEntries.reject(entry.id);
      expect(rejected.status, name).toBe("rejected");
      const bulk = await clerk.waitlistEntries.createBulk([{ emailAddress: uniqueEmail("bulk"), notify: false }]);
      expect(bulk, name).toHaveLength(1);
      await clerk.waitlistEntries.delete(bulk[0]!.id);
    }

    // Invited: an invitation to the application, emailed with its link, which signs the address up.
    const list = await emu.bapi("GET", `/v1/waitlist_entries?query=${encodeURIComponent(joined)}`);
    const entryId = list.body.data[0].id as string;
    const invited = await sdks[1]![1].waitlistEntries.invite(entryId);
    expect(invited).toMatchObject({ status: "invited" });
    const link = (await eventsSince(from, "email.created", 2)).find((e) => e.data.slug === "waitlist_invitation");
    const ticket = new URL(link!.data.data.action_url as string).searchParams.get("ticket")!;
    const signUp = await frontendClient(emu.origin)("POST", "/v1/client/sign_ups", {
      strategy: "ticket",
      ticket,
      password: "a-good-password-1",
    });
    expect(signUp.body.response.status).toBe("complete");
    const completed = await emu.bapi(
      "GET",
      `/v1/waitlist_entries?status=completed&query=${encodeURIComponent(joined)}`,
    );
    expect(completed.body.data.map((e: { id: string }) => e.id)).toEqual([entryId]);
    const types = (await eventsSince(from, "waitlistEntry.updated", 2)).map((e) => e.data.status);
    expect(types).toEqual(expect.arrayContaining(["invited", "completed"]));
    expect(received.slice(from).some((e) => e.type === "waitlistEntry.created")).toBe(true);
  });
  it("takes an address that already has an account, in the browser and through the Backend API, as Clerk does", async () => {
    // Clerk's waitlist-mode spec joins with a user's address and expects "Thanks for joining the waitlist!".
    const { email } = await newPerson(emu.bapi, "listed");
    const browserJoin = await frontendClient(emu.origin)("POST", "/v1/waitlist", { email_address: email });
    expect([browserJoin.status, browserJoin.body]).toMatchObject([200, { object: "waitlist_entry" }]);
    const again = await sdks[0]![1].waitlistEntries.create({ emailAddress: email, notify: false });
    expect(again.id).toBe(browserJoin.body.id);
    const listed = await emu.bapi("GET", `/v1/waitlist_entries?query=${encodeURIComponent(email)}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([browserJoin.body.id]);
  });
});

describe("the interstitial", () => {
  it("is public, loads clerk-js through the proxy with the publishable key, and escapes what it is given", async () => {
    const publishableKey = `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`;
    const proxyUrl = `${emu.origin}/__clerk`;
    const url = `${emu.origin}/__clerk/api/v1/public/interstitial?publishable_key=${publishableKey}&proxy_url=${encodeURIComponent(proxyUrl)}`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain(`"${proxyUrl}/npm/@clerk/clerk-js@5/dist/clerk.browser.js"`);
    expect(html).toContain(`"data-clerk-publishable-key", "${publishableKey}"`);
    const hostile = `${emu.origin}/__clerk/api/v1/public/interstitial?publishable_key=${publishableKey}&proxy_url=${encodeURIComponent("http://127.0.0.1/</script><script>alert(1)</script>")}`;
    const escaped = await (await fetch(hostile)).text();
    expect(escaped).not.toContain("<script>alert(1)");
    const missing = await fetch(`${emu.origin}/__clerk/api/v1/public/interstitial`);
    expect(missing.status).toBe(400);
  });
});

describe("the Svix app", () => {
  it("deleted, no webhook is sent; created again, they are, and svix_url opens the emulator's portal", async () => {
    for (const [name, clerk] of sdks) {
      await clerk.webhooks.deleteSvixApp();
      const from = received.length;
      await emu.bapi("POST", "/v1/users", { email_address: [uniqueEmail("silent")] });
      // The next change after the app is back is sent; the one before it never is.
      const app = await clerk.webhooks.createSvixApp();
      const made = await emu.bapi("POST", "/v1/users", { email_address: [uniqueEmail("heard")] });
      const created = await eventsSince(from, "user.created");
      expect(
        created.map((e) => e.data.id),
        name,
      ).toEqual([made.body.id]);
      // Neither SDK has a resource class for it: Clerk's JSON comes back as it is.
      const portalUrl = (app as unknown as { svix_url: string }).svix_url;
      const portal = await (await fetch(portalUrl)).json();
      expect(portal, name).toMatchObject({ enabled: true, endpoint: expect.stringMatching(/\/hooks$/) });
      const url = await clerk.webhooks.generateSvixAuthURL();
      expect((url as unknown as { svix_url: string }).svix_url, name).not.toBe(portalUrl);
    }
    const twice = await emu.bapi("POST", "/v1/webhooks/svix");
    expect(errorCode(twice)).toBe("svix_app_exists");
  });
});
