import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../server/local-mode";
import { backendApi, errorCode, frontendClient } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";

// What Clerk's <UserProfile/> does, as clerk-js calls the Frontend API, with Clerk's rules and error codes.
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

let n = 0;
/** A new person with a password, signed in on a browser of their own. */
async function newPerson() {
  const email = `person${++n}-${Date.now()}@example.com`;
  const created = await bapi("POST", "/v1/users", { email_address: [email], password: DEMO_PASSWORD });
  expect(created.status).toBe(200);
  const browser = frontendClient(server.origin);
  const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: email, password: DEMO_PASSWORD });
  expect(signIn.body.response.status).toBe("complete");
  return { email, userId: created.body.id as string, browser };
}

const signInStatus = async (identifier: string, password: string) => {
  const r = await frontendClient(server.origin)("POST", "/v1/client/sign_ins", { identifier, password });
  return r.status === 200 ? r.body.response.status : errorCode(r);
};

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("the signed-in person's profile through the Frontend API", () => {
  it("adds an address, verifies it with the test code, makes it primary and removes the old one", async () => {
    const { email, browser } = await newPerson();
    const added = await browser("POST", "/v1/me/email_addresses", { email_address: `new-${email}` });
    expect(added.status).toBe(200);
    const id = added.body.response.id as string;
    expect(added.body.response.verification.status).toBe("unverified");
    // An unverified address cannot be primary, and someone else's cannot be added.
    expect(errorCode(await browser("PATCH", "/v1/me", { primary_email_address_id: id }))).toBe(
      "form_param_value_invalid",
    );
    expect(errorCode(await browser("POST", "/v1/me/email_addresses", { email_address: "ada@example.com" }))).toBe(
      "form_identifier_exists",
    );
    await browser("POST", `/v1/me/email_addresses/${id}/prepare_verification`, { strategy: "email_code" });
    expect(
      errorCode(await browser("POST", `/v1/me/email_addresses/${id}/attempt_verification`, { code: "000000" })),
    ).toBe("form_code_incorrect");
    const verified = await browser("POST", `/v1/me/email_addresses/${id}/attempt_verification`, { code: "424242" });
    expect(verified.body.response.verification.status).toBe("verified");

    const me = await browser("PATCH", "/v1/me", { primary_email_address_id: id });
    expect(me.body.response.primary_email_address_id).toBe(id);
    const oldId = (me.body.response.email_addresses as { id: string }[]).find((e) => e.id !== id)?.id;
    // The primary address stays; the old one goes.
    expect(errorCode(await browser("DELETE", `/v1/me/email_addresses/${id}`))).toBe(
      "primary_identification_deletion_not_allowed",
    );
    expect((await browser("DELETE", `/v1/me/email_addresses/${oldId}`)).body.response).toMatchObject({
      deleted: true,
    });
    expect(await signInStatus(`new-${email}`, DEMO_PASSWORD)).toBe("complete");
    expect(await signInStatus(email, DEMO_PASSWORD)).toBe("form_identifier_not_found");
  });

  it("changes the password only with the current one, and can sign out the other devices", async () => {
    const { email, browser } = await newPerson();
    const other = frontendClient(server.origin);
    await other("POST", "/v1/client/sign_ins", { identifier: email, password: DEMO_PASSWORD });
    expect((await other("GET", "/v1/me")).status).toBe(200);

    const wrong = await browser("POST", "/v1/me/change_password", {
      current_password: "not-the-password",
      new_password: "a-brand-new-secret",
    });
    expect([wrong.status, errorCode(wrong), wrong.body.errors[0].meta.param_name]).toEqual([
      422,
      "form_password_incorrect",
      "current_password",
    ]);
    expect(
      errorCode(
        await browser("POST", "/v1/me/change_password", { current_password: DEMO_PASSWORD, new_password: "short" }),
      ),
    ).toBe("form_password_length_too_short");
    const changed = await browser("POST", "/v1/me/change_password", {
      current_password: DEMO_PASSWORD,
      new_password: "a-brand-new-secret",
      sign_out_of_other_sessions: "true",
    });
    expect(changed.status).toBe(200);
    expect((await browser("GET", "/v1/me")).status).toBe(200);
    expect(errorCode(await other("GET", "/v1/me"))).toBe("signed_out");
    expect(await signInStatus(email, "a-brand-new-secret")).toBe("complete");
    expect(await signInStatus(email, DEMO_PASSWORD)).toBe("form_password_incorrect");
  });

  it("uploads a profile image, serves it from the emulator, and removes it", async () => {
    const { browser } = await newPerson();
    const form = new FormData();
    form.set("file", new Blob([PNG], { type: "image/png" }), "me.png");
    const cookie = browser.cookie();
    const upload = await fetch(`${server.origin}/__clerk/v1/me/profile_image`, {
      method: "POST",
      headers: { Cookie: cookie },
      body: form,
    });
    const image = ((await upload.json()) as { response: { public_url: string } }).response;
    expect(upload.status).toBe(200);
    const served = await fetch(image.public_url.replace(/^https?:\/\/[^/]+/, server.origin));
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    const me = (await browser("GET", "/v1/me")).body.response;
    expect([me.has_image, me.image_url]).toEqual([true, image.public_url]);

    const text = new FormData();
    text.set("file", new Blob(["<svg/>"], { type: "image/png" }), "not.png");
    const refused = await fetch(`${server.origin}/__clerk/v1/me/profile_image`, {
      method: "POST",
      headers: { Cookie: cookie },
      body: text,
    });
    expect(refused.status).toBe(422);

    expect((await browser("DELETE", "/v1/me/profile_image")).status).toBe(200);
    expect((await browser("GET", "/v1/me")).body.response.has_image).toBe(false);
    expect((await fetch(image.public_url.replace(/^https?:\/\/[^/]+/, server.origin))).status).toBe(404);
  });

  it("lists the person's devices and signs another one out", async () => {
    const { email, browser } = await newPerson();
    const other = frontendClient(server.origin);
    await other("POST", "/v1/client/sign_ins", { identifier: email, password: DEMO_PASSWORD });
    const active = await browser("GET", "/v1/me/sessions/active");
    expect(Array.isArray(active.body)).toBe(true);
    expect(active.body).toHaveLength(2);
    const mine = (await browser("GET", "/v1/me")).body.client.last_active_session_id as string;
    const theirs = (active.body as { id: string }[]).find((s) => s.id !== mine)!.id;
    const revoked = await browser("POST", `/v1/me/sessions/${theirs}/revoke`);
    expect(revoked.body.response.status).toBe("revoked");
    expect(errorCode(await other("GET", "/v1/me"))).toBe("signed_out");
    expect(await browser("GET", "/v1/me/sessions/active").then((r) => r.body.length)).toBe(1);
  });

  it("replaces unsafe metadata with PATCH /v1/me and merges it with PATCH /v1/me/metadata", async () => {
    const { browser } = await newPerson();
    await browser("PATCH", "/v1/me", { unsafe_metadata: JSON.stringify({ theme: "dark", prefs: { a: 1, b: 2 } }) });
    const merged = await browser("PATCH", "/v1/me/metadata", {
      unsafe_metadata: JSON.stringify({ prefs: { b: null, c: 3 } }),
    });
    expect(merged.body.response.unsafe_metadata).toEqual({ theme: "dark", prefs: { a: 1, c: 3 } });
    expect(errorCode(await browser("PATCH", "/v1/me", { unsafe_metadata: "[1]" }))).toBe("form_param_format_invalid");
  });

  it("deletes the account with its sessions and memberships, but not the last admin of a team", async () => {
    const { userId, email, browser } = await newPerson();
    const org = (await bapi("POST", "/v1/organizations", { name: `Solo ${n}`, created_by: userId })).body;
    await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: "user_seed_alan", role: "org:member" });
    const refused = await browser("DELETE", "/v1/me");
    expect([refused.status, errorCode(refused)]).toEqual([400, "organization_minimum_permissions_needed"]);

    await bapi("DELETE", `/v1/organizations/${org.id}/memberships/user_seed_alan`);
    const deleted = await browser("DELETE", "/v1/me");
    expect(deleted.body.response).toEqual({ object: "user", id: userId, deleted: true });
    expect(deleted.body.client.sessions).toEqual([]);
    expect((await bapi("GET", `/v1/users/${userId}`)).status).toBe(404);
    expect((await bapi("GET", `/v1/organizations/${org.id}/memberships`)).body.total_count).toBe(0);
    expect(await signInStatus(email, DEMO_PASSWORD)).toBe("form_identifier_not_found");
  });
});
