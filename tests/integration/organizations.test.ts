import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { emulatorCalls } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Local mode: real @clerk/remix on the server, the emulator as Clerk's APIs.
let server: RunningServer;
const cookies = new Map<string, string>();

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "silent" });
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

beforeEach(async () => {
  await fetch(`${server.origin}/__clerk/_emulator/faults`, { method: "DELETE" });
});

/** A signed-in Cookie header for a seeded person (one session each, made once). */
async function as(person: string, orgId?: string): Promise<string> {
  const key = `${person}|${orgId ?? ""}`;
  if (!cookies.has(key)) {
    cookies.set(key, await emulatorCookie(server.origin, `${person}@example.com`, orgId));
  }
  return cookies.get(key)!;
}

const get = (path: string, cookie = "") =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

const post = (path: string, fields: Record<string, string>, cookie: string) => postForm(server, path, fields, cookie);

async function emulatorState() {
  return (await fetch(`${server.origin}/__clerk/_emulator/state`)).json() as Promise<{
    organizations: { id: string; slug: string; name: string }[];
    invitations: { orgId: string; email: string; role: string }[];
  }>;
}

const memberRows = (html: string) => html.match(/data-testid="member-row"/g)?.length ?? 0;

describe("membership decides what you see", () => {
  it("a member gets the organization's home with its name, their role and real member data", async () => {
    const res = await get("/orgs/analytical-engines", await as("grace"));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Analytical Engines");
    expect(html).toMatch(/data-testid="org-role"[^>]*>Member</);
    expect(html).toMatch(/data-testid="member-count"[^>]*>24</);
    expect(memberRows(html)).toBe(5);
  });

  it("an organization you are not in and one that does not exist give the same 404", async () => {
    const alan = await as("alan");
    const notMine = await get("/orgs/difference-co", alan);
    const unknown = await get("/orgs/no-such-org", alan);
    const malformed = await get("/orgs/%3Cscript%3E", alan);
    expect([notMine.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
    const [a, b] = [await notMine.text(), await unknown.text()];
    expect(a).not.toContain("Difference");
    expect(a).toContain("Page not found");
    expect(b).toContain("Page not found");
    expect((await get("/orgs/difference-co/members", alan)).status).toBe(404);
  });

  it("made-up addresses cost Clerk one read of the person's memberships per 10 s, not one per view", async () => {
    const katherine = await as("katherine");
    const MEMBERSHIPS = "bapi GET /v1/users/:id/organization_memberships";
    const reads = async () => (await emulatorCalls(server.origin))[MEMBERSHIPS] ?? 0;
    expect((await get("/orgs", katherine)).status).toBe(200);
    const before = await reads();
    for (const slug of ["made-up-1", "made-up-2", "made-up-3", "made-up-4"]) {
      expect((await get(`/orgs/${slug}`, katherine)).status).toBe(404);
    }
    expect(await reads()).toBe(before + 1);
  });

  it("signed out, an organization page redirects to sign-in with a return URL", async () => {
    const res = await get("/orgs/analytical-engines/members?q=ada");
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, server.origin);
    expect(location.pathname).toBe("/sign-in");
    expect(location.searchParams.get("redirect_url")).toBe("/orgs/analytical-engines/members?q=ada");
  });

  it("signed in, / goes to the active organization, else to /orgs", async () => {
    const withOrg = await get("/", await as("ada", "org_seed_difference"));
    expect(withOrg.headers.get("location")).toBe("/orgs/difference-co");
    const withoutOrg = await get("/", await as("ada"));
    expect(withoutOrg.headers.get("location")).toBe("/orgs");
  });

  it("/orgs lists exactly the user's organizations, with links to switch and to create", async () => {
    const html = await (await get("/orgs", await as("ada"))).text();
    expect(html.match(/data-testid="org-choice"/g)).toHaveLength(2);
    expect(html).toContain('href="/orgs/analytical-engines"');
    expect(html).toContain('href="/orgs/difference-co"');
    expect(html).toContain('href="/orgs/new"');
    const alans = await (await get("/orgs", await as("alan"))).text();
    expect(alans.match(/data-testid="org-choice"/g)).toHaveLength(1);
  });

  it("the switcher's no-JavaScript trigger links to /orgs and names the current organization", async () => {
    const html = await (await get("/orgs/difference-co", await as("ada"))).text();
    expect(html).toMatch(
      /<a href="\/orgs" class="org-switcher-trigger" aria-label="Difference &amp; Co, switch organization"/,
    );
  });
});

describe("members directory", () => {
  it("pages through members ten at a time", async () => {
    const ada = await as("ada");
    const pages = await Promise.all(
      [1, 2, 3].map(async (n) => (await get(`/orgs/analytical-engines/members?page=${n}`, ada)).text()),
    );
    expect(pages.map(memberRows)).toEqual([10, 10, 4]);
    expect(pages[0]).toContain('href="/orgs/analytical-engines/members?page=2"');
    expect(pages[2]).toContain('href="/orgs/analytical-engines/members?page=2"');
    expect(pages[2]).not.toContain('rel="next"');
  });

  it("searches by name or email with ?q=, keeping the query in the box and in page links", async () => {
    const ada = await as("ada");
    const html = await (await get("/orgs/analytical-engines/members?q=hopper", ada)).text();
    expect(memberRows(html)).toBe(1);
    expect(html).toContain("grace@example.com");
    expect(html).toMatch(/name="q"[^>]*value="hopper"/);
    const many = await (await get("/orgs/analytical-engines/members?q=example.com&page=2", ada)).text();
    expect(memberRows(many)).toBe(10);
    expect(many).toContain('href="/orgs/analytical-engines/members?q=example.com&amp;page=3"');
    expect(many).toContain('href="/orgs/analytical-engines/members?q=example.com"');
    const none = await (await get("/orgs/analytical-engines/members?q=nobody-at-all", ada)).text();
    expect(memberRows(none)).toBe(0);
    expect(none).toContain("No one matches that search.");
  });

  it("odd page numbers fall back to the first page instead of failing", async () => {
    const ada = await as("ada");
    for (const page of ["0", "-3", "abc", "1e9", "99999999999"]) {
      const res = await get(`/orgs/analytical-engines/members?page=${page}`, ada);
      expect(res.status).toBe(200);
      expect(memberRows(await res.text())).toBe(10);
    }
  });
});

describe("inviting members", () => {
  const invitePath = "/orgs/difference-co/members";

  it("an admin's invitation is created in Clerk and confirmed on the page", async () => {
    const res = await post(
      invitePath,
      { emailAddress: "New.Person@Example.com", role: "org:member" },
      await as("grace"),
    );
    expect(res.status).toBe(200);
    expect((await res.text()).replaceAll("<!-- -->", "")).toContain(
      "Invitation made for new.person@example.com: its link is below.",
    );
    const state = await emulatorState();
    const org = state.organizations.find((o) => o.slug === "difference-co")!;
    expect(state.invitations).toContainEqual(
      expect.objectContaining({ orgId: org.id, email: "new.person@example.com", role: "org:member" }),
    );
  });

  it("a member posting the form anyway gets a 403 that says why, and nothing is created", async () => {
    const before = (await emulatorState()).invitations.length;
    const res = await post(invitePath, { emailAddress: "sneaky@example.com", role: "org:admin" }, await as("ada"));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Only admins of Difference &amp; Co can invite people");
    expect((await emulatorState()).invitations.length).toBe(before);
  });

  it.each([
    ["an empty email", { emailAddress: "", role: "org:member" }, "Enter the email address to invite."],
    ["an invalid email", { emailAddress: "not-an-email", role: "org:member" }, "Enter a valid email address"],
    ["a too long email", { emailAddress: `${"a".repeat(250)}@example.com`, role: "org:member" }, "too long"],
    ["an unknown role", { emailAddress: "ok@example.com", role: "org:owner" }, "Choose Member or Admin."],
    [
      "markup in the email",
      { emailAddress: "<script>alert(1)</script>@x.io", role: "org:member" },
      "Enter a valid email address",
    ],
  ])("%s gets a 400 with the message and the typed values", async (_label, fields, message) => {
    const res = await post(invitePath, fields, await as("grace"));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).not.toContain("<script>alert(1)</script>");
    if (fields.emailAddress)
      expect(html).toContain(`value="${fields.emailAddress.replace(/</g, "&lt;").replace(/>/g, "&gt;")}"`);
  });

  it("a duplicate invitation and an existing member are refused with Clerk's reason", async () => {
    const grace = await as("grace");
    await post(invitePath, { emailAddress: "twice@example.com", role: "org:member" }, grace);
    const again = await post(invitePath, { emailAddress: "twice@example.com", role: "org:member" }, grace);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("twice@example.com has already been invited.");
    const member = await post(invitePath, { emailAddress: "ada@example.com", role: "org:member" }, grace);
    expect(member.status).toBe(400);
    expect(await member.text()).toContain("ada@example.com is already a member of the organization.");
  });
});

describe("creating an organization", () => {
  it("creates it through the Backend API and lands in it, as its admin", async () => {
    const alan = await as("alan");
    const res = await post("/orgs/new", { name: "Bletchley Park", slug: "" }, alan);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/orgs/bletchley-park");
    const home = await get("/orgs/bletchley-park", alan);
    expect(home.status).toBe(200);
    expect(await home.text()).toMatch(/data-testid="org-role"[^>]*>Admin</);
    expect((await emulatorState()).organizations.map((o) => o.slug)).toContain("bletchley-park");
  });

  it.each([
    ["an empty name", { name: "   ", slug: "" }, "name", "Enter a name for the organization."],
    ["a too long name", { name: "x".repeat(65), slug: "" }, "name", "Use at most 64 characters."],
    ["HTML in the name", { name: "<b>Evil</b> Corp", slug: "" }, "name", "can&#x27;t contain &lt; or &gt;"],
    ["script in the name", { name: "<script>alert(1)</script>", slug: "" }, "name", "can&#x27;t contain &lt; or &gt;"],
    ["a bad slug", { name: "Fine Name", slug: "Not A Slug!" }, "slug", "Use lowercase letters, digits and dashes"],
    ["a reserved slug", { name: "Fine Name", slug: "new" }, "slug", "That address is reserved."],
  ])("%s gets a 400 with the message next to the field and the values kept", async (_label, fields, field, message) => {
    const res = await post("/orgs/new", fields, await as("alan"));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(
      new RegExp(`data-testid="${field}-error"[^>]*>[^<]*${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<b>Evil</b>");
  });

  it("a slug that is taken gets Clerk's message on the slug field", async () => {
    const res = await post("/orgs/new", { name: "Copycat", slug: "analytical-engines" }, await as("alan"));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/data-testid="slug-error"[^>]*>That slug is taken/);
    expect(html).toContain('value="Copycat"');
  });

  it("signed out, creating is refused with a redirect to sign-in", async () => {
    const res = await post("/orgs/new", { name: "Anonymous Org" }, "");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/sign-in\?redirect_url=/);
  });
});

describe("search engines", () => {
  it("public pages may be indexed, signed-in pages may not, and robots.txt says which are which", async () => {
    const landing = await (await get("/")).text();
    expect(landing).not.toContain('name="robots"');
    expect(landing).toMatch(/<meta name="description" content="[^"]+"/);
    for (const path of ["/orgs", "/orgs/analytical-engines", "/orgs/analytical-engines/members", "/user"]) {
      expect(await (await get(path, await as("ada"))).text(), path).toContain(
        '<meta name="robots" content="noindex"/>',
      );
    }
    const robots = await get("/robots.txt");
    expect(robots.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await robots.text()).toMatch(/Allow: \/\$[\s\S]*Disallow: \/$/m);
  });
});
