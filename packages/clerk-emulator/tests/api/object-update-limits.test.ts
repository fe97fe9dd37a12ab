import { afterEach, describe, expect, it } from "vitest";
import type { RateLimitMode } from "../../src/http/rate-limits";
import { errorCode, startInProcessEmulator, type ApiReply, type InProcessEmulator } from "../../testing";

// Clerk's limit on updates to one object (issue 49): 10 per 10 s to any one
// user, organization or membership, behind CLERK_EMULATOR_RATE_LIMITS like
// the others, answered as Clerk answers a rate limit (429, Retry-After, its
// error envelope). A controlled clock moves the window.
let now = 1_800_000_000_000;
let emu: InProcessEmulator | null = null;

async function start(mode: RateLimitMode) {
  emu = await startInProcessEmulator({ rateLimits: mode, rateLimitClock: () => now });
  return emu;
}

afterEach(async () => {
  await emu?.close();
  emu = null;
});

/** `n` updates one after the other; their statuses. */
async function statuses(n: number, update: (i: number) => Promise<ApiReply>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await update(i)).status);
  return out;
}

const ten = Array.from({ length: 10 }, () => 200);

describe("updates to one object", () => {
  it("a user: 10 per 10 s, its metadata included, then Clerk's 429 until the window moves on", async () => {
    const { bapi } = await start("production");
    const rename = (i: number) => bapi("PATCH", "/v1/users/user_seed_ada", { first_name: `Ada ${i}` });
    expect(await statuses(10, rename)).toEqual(ten);

    const refused = await rename(11);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(errorCode(refused)).toBe("too_many_requests");
    expect(refused.body.errors[0].message).toMatch(/Update one user allows 10 requests per 10 seconds/);
    const metadata = await bapi("PATCH", "/v1/users/user_seed_ada/metadata", { public_metadata: { a: 1 } });
    expect(metadata.status).toBe(429);
    // The refused update changed nothing.
    expect((await bapi("GET", "/v1/users/user_seed_ada")).body.first_name).toBe("Ada 9");

    // Another user is another object; reading is no update.
    expect((await bapi("PATCH", "/v1/users/user_seed_grace", { first_name: "Grace" })).status).toBe(200);
    expect((await bapi("GET", "/v1/users/user_seed_ada")).status).toBe(200);

    now += 4_000;
    expect((await rename(12)).headers.get("retry-after")).toBe("6");
    now += 6_000;
    expect((await rename(13)).status).toBe(200);
  });

  it("an organization (PATCH, metadata PATCH and PUT share one window) and a membership", async () => {
    const { bapi } = await start("development");
    const org = "/v1/organizations/org_seed_engines";
    const updates = [
      () => bapi("PATCH", org, { name: "Engines" }),
      () => bapi("PATCH", `${org}/metadata`, { public_metadata: { a: 1 } }),
      () => bapi("PUT", `${org}/metadata`, { public_metadata: { b: 2 } }),
    ];
    expect(await statuses(10, (i) => updates[i % 3]!())).toEqual(ten);
    expect((await updates[0]!()).status).toBe(429);
    expect((await bapi("PATCH", "/v1/organizations/org_seed_difference", { name: "Difference" })).status).toBe(200);

    const member = (userId: string, role: string) =>
      bapi("PATCH", `/v1/organizations/org_seed_difference/memberships/${userId}`, { role });
    expect(await statuses(10, (i) => member("user_seed_ada", i % 2 ? "org:member" : "org:admin"))).toEqual(ten);
    expect((await member("user_seed_ada", "org:admin")).status).toBe(429);
    // Another membership of the same organization is another object.
    expect((await member("user_seed_grace", "org:admin")).status).toBe(200);
  });

  it("are off unless asked for", async () => {
    const { bapi } = await start("off");
    const rename = (i: number) => bapi("PATCH", "/v1/users/user_seed_ada", { first_name: `Ada ${i}` });
    expect(new Set(await statuses(25, rename))).toEqual(new Set([200]));
  });
});
