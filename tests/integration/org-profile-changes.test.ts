import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, newTeam } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Clerk's OrganizationProfile renames, moves and deletes organizations from
// the browser, past the server. These are the server's side of following:
// the browser's word that the active organization changed, a slug the token
// still names, and /orgs and the switcher's list just after a deletion.
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const get = (path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

/** A new person, admin of a new organization, signed in with it active (the token names its slug). */
async function adminOfNewTeam() {
  const { org, admin } = await newTeam(bapi);
  const cookie = await emulatorCookie(server.origin, admin.email, org.id);
  return { id: unique(), userId: admin.id, org, cookie };
}

const changed = (organizationId: string, cookie: string) =>
  postForm(server, "/resources/organizations", { organizationId }, cookie);

describe("the browser says Clerk's components changed the active organization", () => {
  it("a rename shows on the next page at once", async () => {
    const { org, cookie, id } = await adminOfNewTeam();
    expect(await (await get(`/orgs/${org.slug}`, cookie)).text()).toContain(org.name);
    await bapi("PATCH", `/v1/organizations/${org.id}`, { name: `Renamed ${id}` });

    expect((await changed(org.id, cookie)).status).toBe(200);
    const page = await (await get(`/orgs/${org.slug}`, cookie)).text();
    expect(page).toContain(`Renamed ${id}`);
    expect(page).not.toContain(org.name);
  });

  it("after a slug change the new address works at once, and the old one is a 404 though the token still names it", async () => {
    const { org, cookie, id } = await adminOfNewTeam();
    expect((await get(`/orgs/${org.slug}/members`, cookie)).status).toBe(200);
    await bapi("PATCH", `/v1/organizations/${org.id}`, { slug: `moved-${id}` });

    // The new slug is unknown to this instance's copies: it asks Clerk before a 404.
    expect((await get(`/orgs/moved-${id}`, cookie)).status).toBe(200);
    expect((await changed(org.id, cookie)).status).toBe(200);
    const old = await get(`/orgs/${org.slug}`, cookie);
    expect(old.status).toBe(404);
    expect(await old.text()).toContain("Page not found");
    expect((await get(`/orgs/${org.slug}/members`, cookie)).status).toBe(404);
    expect((await get(`/orgs/moved-${id}/members`, cookie)).status).toBe(200);
    // By id still works: the token names it.
    expect((await get(`/orgs/${org.id}`, cookie)).status).toBe(200);
  });

  it("is refused signed out, and for any organization but the session's active one", async () => {
    const { org, cookie } = await adminOfNewTeam();
    const other = await adminOfNewTeam();
    const signedOut = await changed(org.id, "");
    expect(signedOut.status).toBe(401);
    const notActive = await changed(other.org.id, cookie);
    expect(notActive.status).toBe(403);
    expect(await notActive.json()).toEqual({ message: "Only the active organization can be refreshed." });
    expect((await changed("not-an-id", cookie)).status).toBe(403);
  });
});

describe("just after a deletion", () => {
  it("/orgs?left= and the switcher's list drop it, though this instance's copy still held it", async () => {
    const { org, cookie, userId, id } = await adminOfNewTeam();
    const other = await bapi("POST", "/v1/organizations", { name: `Kept ${id}`, created_by: userId });
    // Read (and kept) with the organization in them.
    expect(await (await get("/orgs", cookie)).text()).toContain(org.name);
    const listed = await fetch(`${server.origin}/resources/organizations`, { headers: { Cookie: cookie } });
    expect(JSON.stringify(await listed.json())).toContain(org.name);

    expect((await bapi("DELETE", `/v1/organizations/${org.id}`)).status).toBe(200);

    const orgs = await (await get(`/orgs?left=${org.id}`, cookie)).text();
    expect(orgs).not.toContain(org.name);
    expect(orgs).toContain(other.body.name);
    const switcher = await fetch(`${server.origin}/resources/organizations?left=${org.id}`, {
      headers: { Cookie: cookie },
    });
    const names = ((await switcher.json()) as { organizations: { name: string }[] }).organizations.map((o) => o.name);
    expect(names).toEqual([other.body.name]);
    expect((await get(`/orgs/${org.slug}`, cookie)).status).toBe(404);
    // A malformed `left` is ignored, not an error.
    expect((await get("/orgs?left=%3Cscript%3E", cookie)).status).toBe(200);
  });
});
