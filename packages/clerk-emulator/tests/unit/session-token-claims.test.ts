import { describe, expect, it } from "vitest";
import { encodePermissions, sessionClaims } from "../../src/domain/tokens";
import { settingsFromEnv } from "../../src/settings";

// The emulator's session tokens, claim for claim, in both of Clerk's formats
// (GUIDE.md, "Session tokens"): version 2 by default, version 1 when asked.
const input = {
  issuer: "https://clerk.emulator.invalid",
  sessionId: "sess_1",
  userId: "user_1",
  name: "Ada Lovelace",
  imageUrl: null,
  ttlSeconds: 60,
  azp: "http://localhost:3000",
};
const admin = {
  id: "org_1",
  slug: "engines",
  role: "org:admin",
  permissions: ["org:invoices:read", "org:invoices:manage", "org:reports:read", "org:sys_profile:manage"],
};
const times = { iat: expect.any(Number), nbf: expect.any(Number), exp: expect.any(Number) };

describe("session token claims", () => {
  it("are version 2 by default: `v`, `sts`, `jti`, and the organization in `o` with its role unprefixed", () => {
    const claims = sessionClaims({ ...input, org: admin });
    expect(JSON.parse(JSON.stringify(claims))).toEqual({
      ...times,
      azp: "http://localhost:3000",
      iss: "https://clerk.emulator.invalid",
      sid: "sess_1",
      sub: "user_1",
      fva: [0, -1],
      name: "Ada Lovelace",
      jti: expect.stringMatching(/^[0-9a-f]{20}$/),
      sts: "active",
      v: 2,
      fea: "o:invoices,o:reports",
      o: { id: "org_1", slg: "engines", rol: "admin", per: "read,manage", fpm: "3,1" },
    });
    expect(claims.exp).toBe((claims.iat as number) + 60);
    // A new token, a new id.
    expect(sessionClaims({ ...input, org: admin }).jti).not.toBe(claims.jti);
  });

  it("version 2 without an active organization has no `o` and no `fea`; without slug or permissions, no `slg`, `per`, `fpm`", () => {
    const none = sessionClaims({ ...input, org: null });
    expect(none).toMatchObject({ v: 2, sts: "active" });
    expect(Object.keys(none)).not.toContain("o");
    expect(Object.keys(none)).not.toContain("fea");
    expect(Object.keys(none).filter((k) => k.startsWith("org_"))).toEqual([]);

    const bare = sessionClaims({ ...input, org: { id: "org_2", slug: null, role: "org:member" } });
    expect(bare.o).toEqual({ id: "org_2", rol: "member" });
    expect(Object.keys(bare)).not.toContain("fea");
  });

  it("are version 1 when asked: org_id, org_slug, org_role (prefixed) and org_permissions (custom only), no `v`", () => {
    const claims = sessionClaims({ ...input, org: admin, version: 1 });
    expect(JSON.parse(JSON.stringify(claims))).toEqual({
      ...times,
      azp: "http://localhost:3000",
      iss: "https://clerk.emulator.invalid",
      sid: "sess_1",
      sub: "user_1",
      fva: [0, -1],
      name: "Ada Lovelace",
      org_id: "org_1",
      org_slug: "engines",
      org_role: "org:admin",
      org_permissions: ["org:invoices:read", "org:invoices:manage", "org:reports:read"],
    });
    const none = sessionClaims({ ...input, org: null, version: 1 });
    expect(Object.keys(none).filter((k) => k.startsWith("org_") || k === "o" || k === "v")).toEqual([]);
  });

  it("encode permissions as Clerk does: per feature, bit i of its mask is `per`'s i-th name", () => {
    expect(encodePermissions([])).toBeNull();
    expect(encodePermissions(["org:sys_memberships:read"])).toBeNull();
    expect(encodePermissions(["org:a:x", "org:b:y", "org:b:x", "org:c:z"])).toEqual({
      fea: "o:a,o:b,o:c",
      per: "x,y,z",
      // a: x (1); b: y and x (2 + 1); c: z (4)
      fpm: "1,3,4",
    });
  });

  it("take the version from 1, 2 or nothing, and refuse anything else in one line", () => {
    const version = (value: string | undefined) =>
      settingsFromEnv({ CLERK_EMULATOR_SESSION_TOKEN_VERSION: value }).sessionTokenVersion;
    expect(version(undefined)).toBe(2);
    expect(version("")).toBe(2);
    expect(version("1")).toBe(1);
    expect(version(" 2 ")).toBe(2);
    for (const bad of ["3", "v2", "1.0", "two"])
      expect(() => version(bad)).toThrow(/^CLERK_EMULATOR_SESSION_TOKEN_VERSION: 1 or 2\b.*\n?$/);
  });
});
