import { createRequire } from "node:module";
import { join } from "node:path";
import { createClerkClient as createCore2Client } from "@clerk/backend";
import { describe, expect, it } from "vitest";
import { EMULATOR_ISSUER, emulatorPublishableKey } from "clerk-emulator";
import {
  generateSigningKey,
  sessionClaims,
  signJwt,
  type SessionClaimsInput,
  type SessionTokenVersion,
} from "clerk-emulator/testing";
import { ROOT } from "../support/server";

// Both of Clerk's SDK lines the emulator serves read its session tokens, in
// either version, to the same organization: @clerk/backend 2 (Core 2, under
// @clerk/remix 4, this app's) and @clerk/backend 3 (Core 3, tests/fixtures/core3's).
// Each authenticates a request carrying the token, as a server does, with the
// instance's public key (no network), and its auth object is what getAuth returns.

const core3Require = createRequire(join(ROOT, "tests/fixtures/core3/package.json"));

type AuthLike = {
  userId: string | null;
  sessionId: string | null;
  orgId?: string | null;
  orgSlug?: string | null;
  orgRole?: string | null;
  orgPermissions?: string[] | null;
  sessionStatus?: string | null;
  factorVerificationAge?: unknown;
  has: (params: { role?: string; permission?: string }) => boolean;
};
type Client = {
  authenticateRequest: (
    request: Request,
    options?: object,
  ) => Promise<{ status: string; reason?: string | null; toAuth: () => unknown }>;
};
type CreateClient = (options: { secretKey: string; publishableKey: string; jwtKey: string }) => Client;

const sdks: [string, () => Promise<CreateClient>][] = [
  ["@clerk/backend 2 (Core 2)", async () => createCore2Client as unknown as CreateClient],
  [
    "@clerk/backend 3 (Core 3)",
    async () => {
      const entry = core3Require.resolve("@clerk/backend");
      const version = (core3Require("@clerk/backend/package.json") as { version: string }).version;
      expect(version).toMatch(/^3\./);
      return ((await import(entry)) as { createClerkClient: CreateClient }).createClerkClient;
    },
  ],
];

const key = generateSigningKey();
const org = {
  id: "org_seed_engines",
  slug: "analytical-engines",
  role: "org:admin",
  // Two features, three permissions: fea o:invoices,o:reports; per read,manage; fpm 3,1.
  permissions: ["org:invoices:read", "org:invoices:manage", "org:reports:read", "org:sys_memberships:manage"],
};

function token(version: SessionTokenVersion, active: SessionClaimsInput["org"]) {
  return signJwt(
    key,
    sessionClaims({
      issuer: EMULATOR_ISSUER,
      sessionId: "sess_1",
      userId: "user_seed_ada",
      name: "Ada Lovelace",
      imageUrl: null,
      org: active,
      ttlSeconds: 60,
      version,
    }),
  );
}

async function authOf(createClient: CreateClient, jwt: string): Promise<AuthLike> {
  const client = createClient({
    secretKey: "sk_live_emulator_test",
    publishableKey: emulatorPublishableKey(),
    jwtKey: key.publicKeyPem,
  });
  const state = await client.authenticateRequest(
    new Request("http://127.0.0.1:3000/", { headers: { Authorization: `Bearer ${jwt}` } }),
  );
  expect(state.status, String(state.reason)).toBe("signed-in");
  return state.toAuth() as AuthLike;
}

describe.each(sdks)("%s reads the emulator's session tokens", (_name, load) => {
  it("version 2: the organization's id, slug, role (org: prefixed again) and custom permissions from `o`", async () => {
    const jwt = token(2, org);
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ v: 2, fea: "o:invoices,o:reports", o: { rol: "admin", per: "read,manage" } });
    expect(payload.org_id).toBeUndefined();

    const auth = await authOf(await load(), jwt);
    expect(auth).toMatchObject({
      userId: "user_seed_ada",
      sessionId: "sess_1",
      orgId: "org_seed_engines",
      orgSlug: "analytical-engines",
      orgRole: "org:admin",
      sessionStatus: "active",
      factorVerificationAge: [0, -1],
    });
    expect([...(auth.orgPermissions ?? [])].sort()).toEqual(
      ["org:invoices:manage", "org:invoices:read", "org:reports:read"].sort(),
    );
    expect(auth.has({ role: "org:admin" })).toBe(true);
    expect(auth.has({ permission: "org:reports:read" })).toBe(true);
    expect(auth.has({ permission: "org:reports:manage" })).toBe(false);
  });

  it("version 1: the same organization from org_id, org_slug, org_role, org_permissions", async () => {
    const auth = await authOf(await load(), token(1, org));
    expect(auth).toMatchObject({
      orgId: "org_seed_engines",
      orgSlug: "analytical-engines",
      orgRole: "org:admin",
    });
    expect([...(auth.orgPermissions ?? [])].sort()).toEqual(
      ["org:invoices:manage", "org:invoices:read", "org:reports:read"].sort(),
    );
  });

  it("a member with no custom permissions, and a session with no active organization, in both versions", async () => {
    const createClient = await load();
    const member = { id: "org_seed_difference", slug: "difference-engine", role: "org:member" };
    for (const version of [1, 2] as const) {
      const auth = await authOf(createClient, token(version, member));
      expect(auth).toMatchObject({ orgId: member.id, orgSlug: member.slug, orgRole: "org:member", orgPermissions: [] });
      const none = await authOf(createClient, token(version, null));
      expect(none.userId).toBe("user_seed_ada");
      expect(none.orgId ?? null).toBeNull();
      expect(none.orgRole ?? null).toBeNull();
      expect(none.orgSlug ?? null).toBeNull();
    }
  });

  it("an organization without a slug (the instance's slugs off): no `slg`, no orgSlug", async () => {
    const auth = await authOf(await load(), token(2, { id: "org_noslug", slug: null, role: "org:admin" }));
    expect(auth).toMatchObject({ orgId: "org_noslug", orgRole: "org:admin" });
    expect(auth.orgSlug ?? null).toBeNull();
  });
});
