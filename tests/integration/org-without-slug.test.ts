import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Clerk lets an instance turn organization slugs off; its organizations then
// have none, and the app addresses them by id.
let server: RunningServer;
let ada: string;
let grace: string;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_ORG_SLUGS: "off" });
  ada = await emulatorCookie(server.origin, "ada@example.com");
  grace = await emulatorCookie(server.origin, "grace@example.com");
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const get = (path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

describe("an organization without a slug", () => {
  it("is created, opened, listed and switched to by its id", async () => {
    const created = await postForm(server, "/orgs/new", { name: "Slugless Labs", slug: "" }, ada);
    expect(created.status).toBe(303);
    const location = created.headers.get("location") ?? "";
    expect(location).toMatch(/^\/orgs\/org_[A-Za-z0-9]+$/);

    for (const path of [location, `${location}/members`, `${location}/settings`]) {
      const page = await get(path, ada);
      expect(page.status, path).toBe(200);
      expect(await page.text()).toContain("Slugless Labs");
    }
    const list = await (await get("/orgs", ada)).text();
    expect(list).toContain(`href="${location}"`);
  });

  it("is a 404 for someone who is not a member, like any other", async () => {
    const created = await postForm(server, "/orgs/new", { name: "Ada's Private Lab" }, ada);
    const location = created.headers.get("location") ?? "";
    expect((await get(location, grace)).status).toBe(404);
    expect((await get("/orgs/org_doesnotexist", ada)).status).toBe(404);
  });
});
