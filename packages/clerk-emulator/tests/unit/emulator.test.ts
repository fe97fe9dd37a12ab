import { verifyToken } from "@clerk/backend";
import { describe, expect, it } from "vitest";
import { Faults } from "../../src/http/faults";
import { DEMO_PASSWORD, seedState, verifyPassword } from "../../src/state/seed";
import { generateSigningKey, jwks, sessionClaims, signJwt } from "../../src/domain/tokens";

describe("emulator session tokens", () => {
  const key = generateSigningKey();
  const claims = (ttlSeconds: number) =>
    sessionClaims({
      issuer: "http://127.0.0.1/__clerk",
      sessionId: "sess_1",
      userId: "user_1",
      name: "Ada Lovelace",
      imageUrl: null,
      org: { id: "org_1", slug: "engines", role: "org:admin" },
      ttlSeconds,
    });

  it("are RS256 with a 2048-bit key and verify with @clerk/backend", async () => {
    const jwk = jwks(key).keys[0]!;
    expect(Buffer.from(jwk.n as string, "base64url").length * 8).toBe(2048);
    const verified = await verifyToken(signJwt(key, claims(60)), { jwtKey: key.publicKeyPem });
    expect(verified).toMatchObject({ v: 2, sub: "user_1", sid: "sess_1", o: { slg: "engines" }, name: "Ada Lovelace" });
  });

  it("stop verifying once their lifetime has passed", async () => {
    const expired = { ...claims(60), exp: Math.floor(Date.now() / 1000) - 30 };
    await expect(verifyToken(signJwt(key, expired), { jwtKey: key.publicKeyPem })).rejects.toMatchObject({
      reason: "token-expired",
    });
  });

  it("fail verification under another key", async () => {
    const other = generateSigningKey();
    await expect(verifyToken(signJwt(other, claims(60)), { jwtKey: key.publicKeyPem })).rejects.toMatchObject({
      reason: "token-invalid-signature",
    });
  });
});

describe("emulator faults", () => {
  it("apply to the next N calls of one endpoint, then stop", () => {
    const faults = new Faults();
    faults.arm({ endpoint: "bapi GET /v1/users/:id", mode: "error", times: 2, status: 502 });
    expect(faults.take("bapi GET /v1/users/:id")?.status).toBe(502);
    expect(faults.take("bapi GET /v1/organizations")).toBeNull();
    expect(faults.take("bapi GET /v1/users/:id")?.mode).toBe("error");
    expect(faults.take("bapi GET /v1/users/:id")).toBeNull();
  });

  it("count calls per endpoint", () => {
    const faults = new Faults();
    faults.count("fapi GET /v1/client");
    faults.count("fapi GET /v1/client");
    expect(faults.calls()).toEqual({ "fapi GET /v1/client": 2 });
  });
});

describe("emulator seed", () => {
  it("has two organizations with Ada and Grace as each other's admin and member", () => {
    const state = seedState();
    expect(state.organizations.map((o) => o.slug)).toEqual(["analytical-engines", "difference-co"]);
    const role = (org: string, user: string) =>
      state.memberships.find((m) => m.orgId === org && m.userId === user)?.role;
    expect(role("org_seed_engines", "user_seed_ada")).toBe("org:admin");
    expect(role("org_seed_difference", "user_seed_ada")).toBe("org:member");
    expect(role("org_seed_difference", "user_seed_grace")).toBe("org:admin");
    expect(verifyPassword(DEMO_PASSWORD, state.users[0]!.passwordHash)).toBe(true);
    expect(verifyPassword("wrong", state.users[0]!.passwordHash)).toBe(false);
  });
});
