import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, newTeam } from "../support/emulator-api";
import { postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// What one signed-in person can make the app spend, capped at the limits' real
// values (RATE_LIMIT_SCALE=1): member searches (a Clerk call each) and the
// browser's word that an organization changed (a forget of its copies in Redis).
let server: RunningServer;
let bapi: ReturnType<typeof backendApi>;

beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_SCALE: "1", LOG_LEVEL: "silent" });
  bapi = backendApi(server.origin, server.dataDir);
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const get = (path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

describe("member searches", () => {
  it("the 61st search in a minute gets a 429 page with Retry-After that keeps the query; the directory itself and other people are not held back", async () => {
    const ada = await emulatorCookie(server.origin, "ada@example.com");
    const grace = await emulatorCookie(server.origin, "grace@example.com");
    const directory = "/orgs/analytical-engines/members";
    const statuses: number[] = [];
    // Each a new query or page, as someone typing or paging: a Clerk call each.
    for (let i = 0; i < 30; i++) statuses.push((await get(`${directory}?q=ex${i}`, ada)).status);
    for (let i = 2; i < 32; i++) statuses.push((await get(`${directory}?page=${i}`, ada)).status);
    expect(new Set(statuses)).toEqual(new Set([200]));

    const limited = await get(`${directory}?q=lovelace`, ada);
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    const html = await limited.text();
    // The page, with the search box still holding what was typed, and what to do.
    expect(html).toMatch(/name="q"[^>]*value="lovelace"/);
    expect(html).toContain("You have searched many times in a short while");
    expect(html).toContain('data-testid="search-limited"');
    expect(html).not.toContain('data-testid="member-row"');
    // The same answer for a client-side navigation (JavaScript on).
    const data = await fetch(`${server.origin}${directory}.data?q=lovelace`, { headers: { Cookie: ada } });
    expect(data.status).toBe(429);
    expect(Number(data.headers.get("retry-after"))).toBeGreaterThan(0);
    // Paging past the first page is a search too.
    expect((await get(`${directory}?page=2`, ada)).status).toBe(429);

    // The directory's first page is not a search.
    const first = await get(directory, ada);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('data-testid="member-row"');
    // Another person's searches are counted apart.
    expect((await get(`${directory}?q=lovelace`, grace)).status).toBe(200);
  });
});

describe("telling the server an organization changed", () => {
  it("the 31st in 10 minutes gets a 429 with Retry-After; another person's are counted apart", async () => {
    const mine = await newTeam(bapi);
    const theirs = await newTeam(bapi);
    const me = await emulatorCookie(server.origin, mine.admin.email, mine.org.id);
    const them = await emulatorCookie(server.origin, theirs.admin.email, theirs.org.id);
    const changed = (organizationId: string, cookie: string) =>
      postForm(server, "/resources/organizations", { organizationId }, cookie);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await changed(mine.org.id, me)).status);
    expect(new Set(statuses)).toEqual(new Set([200]));

    const limited = await changed(mine.org.id, me);
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(600);
    expect(((await limited.json()) as { message: string }).message).toMatch(/Please wait \d+ (seconds|minutes)/);
    expect((await changed(theirs.org.id, them)).status).toBe(200);
  });
});
