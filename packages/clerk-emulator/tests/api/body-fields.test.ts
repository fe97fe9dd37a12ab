import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, frontendClient, startInProcessEmulator, type InProcessEmulator } from "../../testing";

// Issue 49: `POST /v1/users` kept the first address, a password and the names,
// and silently dropped everything else Clerk's description lists (external_id,
// metadata, more addresses, phone numbers…); `POST /v1/organizations` dropped
// metadata likewise. Every field of every Backend API write is now kept,
// followed, or refused with Clerk's 422 naming it (each operation declares them where it is registered: src/backend/declarations.ts).
let emu: InProcessEmulator;

beforeAll(async () => {
  emu = await startInProcessEmulator();
});

afterAll(async () => {
  await emu.close();
});

let counter = 0;
const address = (name: string) => `${name}.${++counter}@example.com`;

describe("POST /v1/users", () => {
  it("keeps every field it takes: addresses, names, password, external id, locale, metadata, dates", async () => {
    const [first, second] = [address("kept"), address("kept-too")];
    const made = await emu.bapi("POST", "/v1/users", {
      email_address: [first, second],
      first_name: "Kay",
      last_name: "Kept",
      password: "a-good-password",
      external_id: "ext-kept-1",
      locale: "fr-FR",
      public_metadata: { plan: "team" },
      private_metadata: { stripe: "cus_1" },
      unsafe_metadata: { theme: "dark" },
      legal_accepted_at: "2026-01-02T03:04:05.000Z",
      created_at: "2025-06-01T00:00:00.000Z",
      skip_legal_checks: true,
      skip_password_requirement: false,
    });
    expect(made.status).toBe(200);
    const read = await emu.bapi("GET", `/v1/users/${made.body.id}`);
    expect(read.body).toMatchObject({
      first_name: "Kay",
      last_name: "Kept",
      external_id: "ext-kept-1",
      locale: "fr-FR",
      public_metadata: { plan: "team" },
      private_metadata: { stripe: "cus_1" },
      unsafe_metadata: { theme: "dark" },
      legal_accepted_at: Date.parse("2026-01-02T03:04:05.000Z"),
      created_at: Date.parse("2025-06-01T00:00:00.000Z"),
      password_enabled: true,
    });
    expect(read.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual([first, second]);
    expect(read.body.email_addresses[0].id).toBe(read.body.primary_email_address_id);

    // The password signs in, with either address; the external id finds the user.
    for (const identifier of [first, second]) {
      const signIn = await frontendClient(emu.origin)("POST", "/v1/client/sign_ins", {
        identifier,
        password: "a-good-password",
      });
      expect(signIn.body.response.status, identifier).toBe("complete");
    }
    const found = await emu.bapi("GET", "/v1/users?external_id=ext-kept-1");
    expect(found.body.map((u: { id: string }) => u.id)).toEqual([made.body.id]);
  });

  it("skip_password_checks lets a short password through, as Clerk does", async () => {
    const short = { email_address: [address("short")], password: "short" };
    const refused = await emu.bapi("POST", "/v1/users", short);
    expect([refused.status, errorCode(refused)]).toEqual([422, "form_password_length_too_short"]);
    const made = await emu.bapi("POST", "/v1/users", { ...short, skip_password_checks: true });
    expect(made.status).toBe(200);
  });

  it("refuses a field it would have to drop, with Clerk's 422 naming it, and creates nobody", async () => {
    const refusals: Record<string, unknown> = {
      web3_wallet: ["0x0000000000000000000000000000000000000001"],
      password_digest: "$2a$10$abcdefghijklmnopqrstuv",
      delete_self_enabled: true,
      create_organizations_limit: 3,
      favourite_colour: "teal",
    };
    for (const [field, value] of Object.entries(refusals)) {
      const email = address("refused");
      const r = await emu.bapi("POST", "/v1/users", { email_address: [email], [field]: value });
      expect([r.status, errorCode(r), r.body.errors[0].meta.param_name], field).toEqual([
        422,
        "form_param_unknown",
        field,
      ]);
      expect(r.body.errors[0].long_message).toContain(`${field} is not a valid parameter for this request.`);
      const count = await emu.bapi("GET", `/v1/users/count?email_address=${encodeURIComponent(email)}`);
      expect(count.body.total_count, field).toBe(0);
    }
  });

  it("an external id is unique in the instance, and an address is taken once", async () => {
    const email = address("unique");
    expect((await emu.bapi("POST", "/v1/users", { email_address: [email], external_id: "ext-u" })).status).toBe(200);
    const again = await emu.bapi("POST", "/v1/users", { email_address: [address("other")], external_id: "ext-u" });
    expect([again.status, errorCode(again), again.body.errors[0].meta.param_name]).toEqual([
      422,
      "form_identifier_exists",
      "external_id",
    ]);
    const taken = await emu.bapi("POST", "/v1/users", { email_address: [email] });
    expect([taken.status, errorCode(taken)]).toEqual([422, "form_identifier_exists"]);
    const dup = address("dup");
    const twice = await emu.bapi("POST", "/v1/users", { email_address: [dup, dup] });
    expect([twice.status, errorCode(twice)]).toEqual([422, "form_param_duplicate"]);
  });
});

describe("PATCH /v1/users/:id", () => {
  it("keeps external_id, locale, legal_accepted_at, created_at and metadata", async () => {
    const made = await emu.bapi("POST", "/v1/users", { email_address: [address("patched")] });
    const patched = await emu.bapi("PATCH", `/v1/users/${made.body.id}`, {
      external_id: "ext-patched",
      locale: "de-DE",
      legal_accepted_at: "2026-02-03T04:05:06.000Z",
      created_at: "2024-01-01T00:00:00.000Z",
      private_metadata: { tier: 2 },
      notify_primary_email_address_changed: true,
    });
    expect(patched.status).toBe(200);
    expect((await emu.bapi("GET", `/v1/users/${made.body.id}`)).body).toMatchObject({
      external_id: "ext-patched",
      locale: "de-DE",
      legal_accepted_at: Date.parse("2026-02-03T04:05:06.000Z"),
      created_at: Date.parse("2024-01-01T00:00:00.000Z"),
      private_metadata: { tier: 2 },
    });
  });

  it("refuses a field it would have to drop, and changes nothing", async () => {
    const made = await emu.bapi("POST", "/v1/users", { email_address: [address("unpatched")], first_name: "Una" });
    for (const [field, value] of Object.entries({
      create_organization_enabled: true,
      nickname: "u",
    })) {
      const r = await emu.bapi("PATCH", `/v1/users/${made.body.id}`, { first_name: "Changed", [field]: value });
      expect([r.status, errorCode(r), r.body.errors[0].meta.param_name], field).toEqual([
        422,
        "form_param_unknown",
        field,
      ]);
    }
    expect((await emu.bapi("GET", `/v1/users/${made.body.id}`)).body.first_name).toBe("Una");
    const metadata = await emu.bapi("PATCH", `/v1/users/${made.body.id}/metadata`, { secret_metadata: { a: 1 } });
    expect([metadata.status, errorCode(metadata)]).toEqual([422, "form_param_unknown"]);
  });

  it("a malformed date is Clerk's 422 form_param_format_invalid", async () => {
    const made = await emu.bapi("POST", "/v1/users", { email_address: [address("dated")] });
    const r = await emu.bapi("PATCH", `/v1/users/${made.body.id}`, { created_at: "last tuesday" });
    expect([r.status, errorCode(r)]).toEqual([422, "form_param_format_invalid"]);
  });
});

describe("the other Backend API writes", () => {
  it("POST /v1/organizations keeps metadata, max_allowed_memberships and created_at", async () => {
    const made = await emu.bapi("POST", "/v1/organizations", {
      name: `Kept fields ${++counter}`,
      created_by: "user_seed_ada",
      public_metadata: { plan: "pro" },
      private_metadata: { crm: "acct_1" },
      max_allowed_memberships: 7,
      created_at: "2025-03-04T05:06:07.000Z",
    });
    expect(made.status).toBe(200);
    expect((await emu.bapi("GET", `/v1/organizations/${made.body.id}`)).body).toMatchObject({
      public_metadata: { plan: "pro" },
      private_metadata: { crm: "acct_1" },
      max_allowed_memberships: 7,
      created_at: Date.parse("2025-03-04T05:06:07.000Z"),
    });
  });

  it("refuses what it would have to drop, and makes or changes nothing", async () => {
    const name = `Refused ${++counter}`;
    const org = await emu.bapi("POST", "/v1/organizations", { name, role_set_key: "role_set:custom" });
    expect([org.status, errorCode(org), org.body.errors[0].meta.param_name]).toEqual([
      422,
      "form_param_unknown",
      "role_set_key",
    ]);
    expect((await emu.bapi("GET", `/v1/organizations?query=${encodeURIComponent(name)}`)).body.data).toEqual([]);

    const engines = "/v1/organizations/org_seed_engines";
    const refusals: [string, string, Record<string, unknown>][] = [
      ["PATCH", engines, { name: "Changed", admin_delete_enabled: true }],
      ["PATCH", engines, { name: "Changed", colour: "teal" }],
      // The emulator has no role sets: a role left out of the initial one is what it cannot do.
      ["POST", "/v1/organization_roles", { name: "Left out", key: "org:left_out", include_in_initial_role_set: false }],
      [
        "POST",
        `${engines}/invitations`,
        { email_address: "meta@example.com", role: "org:member", private_metadata: {} },
      ],
      ["POST", "/v1/invitations", { email_address: "meta@example.com", public_metadata: { a: 1 } }],
      ["POST", "/v1/sign_in_tokens", { user_id: "user_seed_ada", org_id: "org_seed_engines" }],
      ["POST", "/v1/sessions/sess_none/revoke", { reason: "because" }],
    ];
    for (const [method, path, body] of refusals) {
      const r = await emu.bapi(method, path, body);
      expect([r.status, errorCode(r)], `${method} ${path} ${JSON.stringify(body)}`).toEqual([
        422,
        "form_param_unknown",
      ]);
    }
    expect((await emu.bapi("GET", engines)).body.name).toBe("Analytical Engines");
    expect((await emu.bapi("GET", "/v1/organization_roles?query=org:left_out")).body.data).toEqual([]);
    const invited = await emu.bapi("GET", `${engines}/invitations?email_address=meta%40example.com`);
    expect(invited.body.data).toEqual([]);
  });

  it("follows the flags it takes: notify (nothing to send) and ignore_existing", async () => {
    const email = address("again");
    const first = await emu.bapi("POST", "/v1/invitations", { email_address: email, notify: false });
    expect(first.status).toBe(200);
    const twice = await emu.bapi("POST", "/v1/invitations", { email_address: email });
    expect([twice.status, errorCode(twice)]).toEqual([400, "duplicate_record"]);
    const anyway = await emu.bapi("POST", "/v1/invitations", { email_address: email, ignore_existing: true });
    expect(anyway.status).toBe(200);
    expect(anyway.body.id).not.toBe(first.body.id);
  });
});
