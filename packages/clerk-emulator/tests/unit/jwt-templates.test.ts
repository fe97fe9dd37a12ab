import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jwtTemplates, mintTemplateToken, templateFromBody } from "../../src/domain/jwt-templates";
import { seedState } from "../../src/state/seed";
import type { Store } from "../../src/state/store";
import { storeWithDefaults } from "../support/store";
import { generateSigningKey } from "../../src/domain/tokens";

// Clerk's shortcodes as src/domain/jwt-templates.ts renders them, on the seeded
// people: a lone shortcode keeps its value's type, text around shortcodes
// makes a string, `||` falls back, and Clerk's default claims win.
const key = generateSigningKey();
const dir = mkdtempSync(join(tmpdir(), "jwt-templates-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function claimsFor(store: Store, claims: Record<string, unknown>, actor: Record<string, unknown> | null = null) {
  const template = templateFromBody(store, { name: `t${Math.random()}`, claims }, null);
  const session = store.write(() => store.createSession(store.createClient(), "user_seed_ada", 60_000));
  session.actor = actor;
  session.lastActiveOrganizationId = store.membershipsOfUser("user_seed_ada")[0]?.orgId ?? null;
  const jwt = mintTemplateToken(store, { key, issuer: "https://issuer.invalid" }, { template, session });
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}

describe("JWT template shortcodes", () => {
  const store = storeWithDefaults();
  const ada = store.user("user_seed_ada")!;
  ada.publicMetadata = { plan: "pro", flags: ["a", "b"], empty: "" };

  it("keep a value's own type alone and make a string among text", () => {
    expect(
      claimsFor(store, {
        flags: "{{user.public_metadata.flags}}",
        has_image: "{{user.has_image}}",
        missing: "{{user.public_metadata.nope}}",
        line: "{{user.first_name}} <{{user.primary_email_address}}> {{user.public_metadata.nope}}!",
      }),
    ).toMatchObject({ flags: ["a", "b"], has_image: false, missing: null, line: "Ada <ada@example.com> !" });
  });

  it("fall back with ||, past empty and absent values, to a quoted literal", () => {
    expect(
      claimsFor(store, {
        plan: "{{user.public_metadata.empty || user.public_metadata.plan}}",
        fallback: "{{user.public_metadata.nope || 'free'}}",
      }),
    ).toMatchObject({ plan: "pro", fallback: "free" });
  });

  it("read the active organization, the session's actor, and never private metadata", () => {
    ada.privateMetadata = { secret: "s" };
    const claims = claimsFor(
      store,
      { org: "{{org.id}}", role: "{{org.role}}", act: "{{session.actor}}", secret: "{{user.private_metadata.secret}}" },
      { sub: "user_seed_grace" },
    );
    expect(claims.org).toMatch(/^org_/);
    expect(claims).toMatchObject({
      role: expect.stringMatching(/^org:/),
      act: { sub: "user_seed_grace" },
      secret: null,
    });
  });

  it("cannot override Clerk's default claims", () => {
    const claims = claimsFor(store, { sub: "x", iss: "y", exp: 1 });
    expect(claims).toMatchObject({ sub: "user_seed_ada", iss: "https://issuer.invalid" });
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  });
});

describe("a state file from before JWT templates and actor tokens", () => {
  it("loads, with none of either, and takes new ones", () => {
    const file = join(dir, "old.json");
    const old = seedState() as unknown as Record<string, unknown>;
    delete old.jwtTemplates;
    delete old.actorTokens;
    writeFileSync(file, JSON.stringify(old));
    const store = storeWithDefaults(file);
    expect(jwtTemplates(store)).toEqual([]);
    store.write((state) => state.jwtTemplates.push(templateFromBody(store, { name: "later", claims: {} }, null)));
    expect(store.state.jwtTemplates?.map((t) => t.name)).toEqual(["later"]);
  });
});
