import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../server/local-mode";
import { backendApi, errorCode, frontendClient } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";

// What Clerk's <OrganizationProfile/> does, the Backend API calls SDK users make, and what never reaches the browser.
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

async function signedIn(email: string) {
  const browser = frontendClient(server.origin);
  expect((await browser("POST", "/v1/client/sign_ins", { identifier: email, password: DEMO_PASSWORD })).status).toBe(
    200,
  );
  return browser;
}

let n = 0;
/** An organization Ada administers and Alan belongs to. */
async function newOrg() {
  const org = (await bapi("POST", "/v1/organizations", { name: `Team ${++n}`, created_by: "user_seed_ada" })).body;
  await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: "user_seed_alan", role: "org:member" });
  return org as { id: string; slug: string };
}

/** Every key anywhere in a JSON value. */
const keysOf = (value: unknown): string[] =>
  typeof value !== "object" || value === null ? [] : Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);

describe("organization settings through the Frontend API", () => {
  it("renames and changes the slug under Clerk's rules, admins only", async () => {
    const org = await newOrg();
    const ada = await signedIn("ada@example.com");
    const alan = await signedIn("alan@example.com");
    const renamed = await ada("PATCH", `/v1/organizations/${org.id}`, { name: "Renamed Team", slug: `renamed-${n}` });
    expect(renamed.body.response).toMatchObject({ name: "Renamed Team", slug: `renamed-${n}` });
    expect(errorCode(await ada("PATCH", `/v1/organizations/${org.id}`, { slug: "analytical-engines" }))).toBe(
      "form_identifier_exists",
    );
    for (const slug of ["Upper", "-dash", "two--dashes", "sp ace"]) {
      expect(errorCode(await ada("PATCH", `/v1/organizations/${org.id}`, { slug }))).toBe("form_param_format_invalid");
    }
    const member = await alan("PATCH", `/v1/organizations/${org.id}`, { name: "Mine now" });
    expect([member.status, errorCode(member)]).toEqual([403, "missing_organization_permission"]);
    expect((await bapi("GET", `/v1/organizations/renamed-${n}`)).body.name).toBe("Renamed Team");
    expect((await bapi("GET", `/v1/organizations/${org.slug}`)).status).toBe(404);
  });

  it("sets and removes a logo", async () => {
    const org = await newOrg();
    const ada = await signedIn("ada@example.com");
    const form = new FormData();
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    form.set("file", new Blob([png], { type: "image/png" }), "logo.png");
    const res = await fetch(`${server.origin}/__clerk/v1/organizations/${org.id}/logo?_method=PUT`, {
      method: "POST",
      headers: { Cookie: ada.cookie() },
      body: form,
    });
    const withLogo = ((await res.json()) as { response: { has_image: boolean; image_url: string } }).response;
    expect(withLogo.has_image).toBe(true);
    expect((await fetch(withLogo.image_url.replace(/^https?:\/\/[^/]+/, server.origin))).status).toBe(200);
    expect((await ada("DELETE", `/v1/organizations/${org.id}/logo`)).status).toBe(200);
    expect((await ada("GET", `/v1/organizations/${org.id}`)).body.response.has_image).toBe(false);
  });

  it("deletes an organization (admins only): its memberships, invitations and active-organization claims go", async () => {
    const org = await newOrg();
    const ada = await signedIn("ada@example.com");
    const alan = await signedIn("alan@example.com");
    await ada("POST", `/v1/organizations/${org.id}/invitations`, {
      email_address: "newcomer@example.com",
      role: "org:member",
    });
    expect(errorCode(await alan("DELETE", `/v1/organizations/${org.id}`))).toBe("missing_organization_permission");
    const deleted = await ada("DELETE", `/v1/organizations/${org.id}`);
    expect(deleted.body.response).toEqual({ object: "organization", id: org.id, slug: org.slug, deleted: true });
    expect((await ada("GET", `/v1/organizations/${org.id}`)).status).toBe(404);
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).status).toBe(404);
    const mine = (await alan("GET", "/v1/me/organization_memberships")).body.response.data as {
      organization: { id: string };
    }[];
    expect(mine.map((m) => m.organization.id)).not.toContain(org.id);
  });
});

describe("the Backend API calls SDK users make", () => {
  it("updates a user and merges their metadata", async () => {
    const user = (
      await bapi("POST", "/v1/users", { email_address: ["bapi-user@example.com"], password: DEMO_PASSWORD })
    ).body;
    const updated = await bapi("PATCH", `/v1/users/${user.id}`, {
      first_name: "Bea",
      private_metadata: { plan: "pro", seats: 3 },
    });
    expect(updated.body).toMatchObject({ first_name: "Bea", private_metadata: { plan: "pro", seats: 3 } });
    const merged = await bapi("PATCH", `/v1/users/${user.id}/metadata`, {
      private_metadata: { seats: null, region: "eu" },
      public_metadata: { badge: "early" },
    });
    expect(merged.body).toMatchObject({
      private_metadata: { plan: "pro", region: "eu" },
      public_metadata: { badge: "early" },
    });
    expect(errorCode(await bapi("PATCH", `/v1/users/${user.id}`, { password: "short" }))).toBe(
      "form_password_length_too_short",
    );
    expect((await bapi("PATCH", "/v1/users/user_missing", { first_name: "X" })).status).toBe(404);
  });

  it("updates and deletes an organization", async () => {
    const org = await newOrg();
    const updated = await bapi("PATCH", `/v1/organizations/${org.id}`, {
      name: "Backend Name",
      private_metadata: { tier: 2 },
    });
    expect(updated.body).toMatchObject({ name: "Backend Name", private_metadata: { tier: 2 } });
    expect((await bapi("DELETE", `/v1/organizations/${org.id}`)).body).toMatchObject({ id: org.id, deleted: true });
    expect((await bapi("DELETE", `/v1/organizations/${org.id}`)).status).toBe(404);
  });

  it("lists a user's sessions, and the application's invitations", async () => {
    await signedIn("grace@example.com");
    expect((await bapi("GET", "/v1/sessions")).status).toBe(422);
    const sessions = await bapi("GET", "/v1/sessions?user_id=user_seed_grace&status=active");
    expect(Array.isArray(sessions.body)).toBe(true);
    expect(sessions.body[0]).toMatchObject({ object: "session", user_id: "user_seed_grace", status: "active" });

    const invited = await bapi("POST", "/v1/invitations", { email_address: "invited-app@example.com" });
    expect(invited.body).toMatchObject({ object: "invitation", status: "pending" });
    expect(errorCode(await bapi("POST", "/v1/invitations", { email_address: "ada@example.com" }))).toBe(
      "form_identifier_exists",
    );
    const list = await bapi("GET", "/v1/invitations?status=pending");
    expect((list.body as { id: string }[]).map((i) => i.id)).toContain(invited.body.id);
    expect((await bapi("POST", `/v1/invitations/${invited.body.id}/revoke`)).body.status).toBe("revoked");
  });
});

describe("private metadata never leaves through the Frontend API", () => {
  it("is absent from users, organizations and memberships the browser reads", async () => {
    const org = await newOrg();
    await bapi("PATCH", `/v1/organizations/${org.id}`, { private_metadata: { token: "private-org-value" } });
    await bapi("PATCH", "/v1/users/user_seed_ada/metadata", { private_metadata: { token: "private-user-value" } });
    const ada = await signedIn("ada@example.com");
    const answers = await Promise.all([
      ada("GET", "/v1/client"),
      ada("GET", "/v1/me"),
      ada("GET", `/v1/organizations/${org.id}`),
      ada("GET", `/v1/organizations/${org.id}/memberships`),
      ada("GET", "/v1/me/organization_memberships"),
      ada("PATCH", `/v1/organizations/${org.id}`, { name: "Still secret" }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(keysOf(answer.body)).not.toContain("private_metadata");
      expect(JSON.stringify(answer.body)).not.toMatch(/private-(org|user)-value/);
    }
    // The Backend API has it.
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).body.private_metadata).toEqual({
      token: "private-org-value",
    });
  });
});
