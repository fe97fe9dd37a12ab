import { createClerkClient } from "@clerk/backend";
import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "../../src";
import { browserAppForTests } from "../support/browser-app";

// Issue 49: the real clerk-js (5 from this app's packages, 6 from the Core 3
// fixture's) in Chromium, on a bare page that loads it through the emulator's
// proxy path as Clerk's CDN would: `session.getToken({ template })` asks the
// Frontend API for a JWT template's token, and signing in with an actor
// token's ticket (what clerk-js does with `__clerk_ticket`) makes an
// impersonated session whose token @clerk/backend reads `actor` from.

const TEMPLATE = "browser-template";
const app = browserAppForTests();

const decode = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

type ClerkJs = {
  version: string;
  load(): Promise<void>;
  setActive(params: { session: string }): Promise<void>;
  client: { signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> } };
  session: { actor: unknown; getToken(options?: { template?: string }): Promise<string | null> };
};
type ClerkWindow = { Clerk?: ClerkJs };

describe.each(["5", "6"])("clerk-js %s in Chromium", (major) => {
  it("getToken({ template }) mints the template's token; an unknown template is Clerk's 404; an actor token's ticket signs in as the user with `act`", async () => {
    const clerk = createClerkClient({ secretKey: app.secretKey, apiUrl: `${app.origin}/__clerk/api` });
    const existing = await clerk.jwtTemplates.list();
    if (!existing.data.some((t) => t.name === TEMPLATE)) {
      await clerk.jwtTemplates.create({
        name: TEMPLATE,
        claims: { aud: "browser", email: "{{user.primary_email_address}}", name: "{{user.full_name}}" },
      });
    }
    const actorToken = await clerk.actorTokens.create({ userId: "user_seed_grace", actor: { sub: "user_seed_ada" } });

    const signedIn = await app.inClerkJs(
      `/${major}`,
      async ({ template, password }) => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        const signIn = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
        await Clerk.setActive({ session: signIn.createdSessionId });
        const templateToken = await Clerk.session.getToken({ template });
        const unknown = await Clerk.session.getToken({ template: "no-such-template" }).then(
          () => null,
          (e: { status?: number; errors?: { code: string }[] }) => ({ status: e.status, code: e.errors?.[0]?.code }),
        );
        return { version: Clerk.version, templateToken, unknown };
      },
      { template: TEMPLATE, password: DEMO_PASSWORD },
    );
    // A browser of its own: what clerk-js does with an impersonation link's `__clerk_ticket`.
    const impersonated = await app.inClerkJs(
      `/${major}`,
      async ({ ticket }) => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        const signIn = await Clerk.client.signIn.create({ strategy: "ticket", ticket });
        await Clerk.setActive({ session: signIn.createdSessionId });
        return { actor: Clerk.session.actor, token: await Clerk.session.getToken() };
      },
      { ticket: actorToken.token! },
    );

    expect(signedIn.version).toMatch(new RegExp(`^${major}\\.`));
    expect(decode(signedIn.templateToken!)).toMatchObject({
      aud: "browser",
      email: "ada@example.com",
      name: "Ada Lovelace",
      sub: "user_seed_ada",
      azp: app.origin,
    });
    expect(signedIn.unknown).toEqual({ status: 404, code: "resource_not_found" });
    expect(impersonated.actor).toEqual({ sub: "user_seed_ada" });

    const state = await clerk.authenticateRequest(
      new Request("http://127.0.0.1/", { headers: { Authorization: `Bearer ${impersonated.token}` } }),
      { jwtKey: app.emulator.key.publicKeyPem, publishableKey: app.publishableKey },
    );
    expect(state.status).toBe("signed-in");
    expect(state.toAuth()).toMatchObject({ userId: "user_seed_grace", actor: { sub: "user_seed_ada" } });
  });
});
