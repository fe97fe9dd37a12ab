import { createVerify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  errorCode,
  frontendClient,
  startInProcessEmulator,
  type InProcessEmulator,
  OPEN_REDIRECT_PAYLOADS,
  signedInBrowser,
} from "../../testing";

// Issue 49: the Frontend API's infrastructure operations — the well-known
// documents, health and proxy checks, the redirect helper, multi-domain sync,
// and what a production instance with no OAuth providers, integrations or
// development browsers answers — over real HTTP, each answer checked against
// Clerk's spec by the contract check.
let emu: InProcessEmulator;
let secretKey: string;
/** A satellite app's origin: allowed, reaching the Frontend API through its own proxy at `/__clerk`. */
const SATELLITE = "http://satellite.example";

beforeAll(async () => {
  secretKey = "sk_live_emulator_infrastructure_test";
  emu = await startInProcessEmulator({ secretKey, allowedOrigins: [SATELLITE] });
});
afterAll(async () => emu?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${emu.origin}/__clerk${path}`, { headers, redirect: "manual" });

/** A browser signed in with a password as the seeded person. */
const signedIn = () => signedInBrowser(emu.origin);

describe("the well-known documents", () => {
  it("jwks.json is the instance's key, the Backend API's /v1/jwks, and verifies its session tokens", async () => {
    const jwks = await (await get("/.well-known/jwks.json")).json();
    expect(jwks).toEqual((await emu.bapi("GET", "/v1/jwks")).body);
    const browser = await signedIn();
    const client = (await browser("GET", "/v1/client")).body.response;
    const jwt = client.sessions[0].last_active_token.jwt as string;
    const [header, payload, signature] = jwt.split(".");
    const { kid } = JSON.parse(Buffer.from(header!, "base64url").toString()) as { kid: string };
    const key = jwks.keys.find((k: { kid: string }) => k.kid === kid);
    expect(key).toBeDefined();
    const verifier = createVerify("RSA-SHA256").update(`${header}.${payload}`);
    expect(verifier.verify({ key, format: "jwk" }, Buffer.from(signature!, "base64url"))).toBe(true);
  });

  it("openid-configuration names the tokens' issuer and this Frontend API's own URLs", async () => {
    const doc = await (await get("/.well-known/openid-configuration")).json();
    expect(doc.issuer).toBe("https://clerk.emulator.invalid");
    expect(doc.jwks_uri).toBe(`${emu.origin}/__clerk/.well-known/jwks.json`);
    expect(await (await fetch(doc.jwks_uri)).json()).toEqual((await emu.bapi("GET", "/v1/jwks")).body);
    expect(doc.authorization_endpoint).toBe(`${emu.origin}/__clerk/oauth/authorize`);
    expect(doc.id_token_signing_alg_values_supported).toEqual(["RS256"]);
  });

  it("behind a proxy, the URLs are the proxy's", async () => {
    const headers = { "Clerk-Proxy-Url": "https://app.example/__clerk", "Clerk-Secret-Key": secretKey };
    const doc = await (await get("/.well-known/oauth-authorization-server", headers)).json();
    expect(doc.jwks_uri).toBe("https://app.example/__clerk/.well-known/jwks.json");
    expect(doc.token_endpoint).toBe("https://app.example/__clerk/oauth/token");
  });

  it("no native apps and no passkey related origins", async () => {
    expect(await (await get("/.well-known/assetlinks.json")).json()).toEqual([]);
    expect(await (await get("/.well-known/apple-app-site-association")).json()).toEqual({
      webcredentials: { apps: [] },
    });
    expect((await get("/.well-known/webauthn")).status).toBe(404);
  });
});

describe("health", () => {
  it("GET /v1/health is healthy", async () => {
    expect(await (await get("/v1/health")).json()).toEqual({ status: "healthy" });
  });

  it("the proxy check is healthy only when the proxy forwards the instance's secret key, its URL and the client's address", async () => {
    const proxied = {
      "Clerk-Proxy-Url": "https://app.example/__clerk",
      "Clerk-Secret-Key": secretKey,
      "X-Forwarded-For": "203.0.113.7",
    };
    const healthy = await get("/v1/proxy-health?domain_id=dmn_emulator", proxied);
    expect([healthy.status, await healthy.json()]).toEqual([
      200,
      { status: "healthy", x_forwarded_for: "203.0.113.7" },
    ]);
    for (const [name, value] of [
      ["Clerk-Secret-Key", "sk_live_someone_else"],
      ["Clerk-Secret-Key", ""],
      ["Clerk-Proxy-Url", ""],
      ["Clerk-Proxy-Url", "not a url"],
      ["X-Forwarded-For", ""],
    ] as const) {
      const headers: Record<string, string> = { ...proxied, [name]: value };
      if (!value) delete headers[name];
      const r = await get("/v1/proxy-health?domain_id=dmn_emulator", headers);
      expect([name, value, r.status, (await r.json()).status]).toEqual([name, value, 503, "unhealthy"]);
    }
    const otherDomain = await get("/v1/proxy-health?domain_id=dmn_someone_else", proxied);
    expect([otherDomain.status, (await otherDomain.json()).status]).toEqual([503, "unhealthy"]);
    const noDomain = await get("/v1/proxy-health", proxied);
    expect([noDomain.status, (await noDomain.json()).errors[0].meta.param_name]).toEqual([400, "domain_id"]);
  });
});

describe("redirects", () => {
  it("/v1/redirect goes to an allowed redirect_url, or home without one", async () => {
    const to = await get(`/v1/redirect?redirect_url=${encodeURIComponent(`${SATELLITE}/page?x=1`)}`);
    expect([to.status, to.headers.get("location")]).toEqual([307, `${SATELLITE}/page?x=1`]);
    const home = await get("/v1/redirect");
    expect([home.status, home.headers.get("location")]).toEqual([307, `${emu.origin}/`]);
  });

  it("/v1/redirect never leads off the allowed origins", async () => {
    for (const payload of OPEN_REDIRECT_PAYLOADS) {
      const r = await get(`/v1/redirect?redirect_url=${encodeURIComponent(payload)}`);
      const location = r.headers.get("location");
      if (r.status === 307) expect([payload, new URL(location!).origin]).toEqual([payload, emu.origin]);
      else expect([payload, r.status, location]).toEqual([payload, 400, null]);
    }
  });

  it("a provider's POST to the OAuth callback becomes the GET, on this Frontend API, which refuses an unknown state", async () => {
    const post = await fetch(`${emu.origin}/__clerk/v1/oauth_callback`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code: "c", state: "s", evil: "https://evil.example" }).toString(),
      redirect: "manual",
    });
    expect([post.status, post.headers.get("location")]).toEqual([303, "/__clerk/v1/oauth_callback?code=c&state=s"]);
    const callback = await get("/v1/oauth_callback?code=c&state=s");
    const body = await callback.json();
    expect([callback.status, body.errors[0].meta.param_name]).toEqual([400, "state"]);
    const noState = await get("/v1/oauth_callback?code=c");
    expect((await noState.json()).errors[0].code).toBe("form_param_missing");
  });
});

describe("multi-domain sync", () => {
  it("a satellite's sync gives the satellite the primary's client and sends the browser back with __clerk_synced=true", async () => {
    const browser = await signedIn();
    const clientId = /__client=([^;]+)/.exec(browser.cookie())![1]!;
    const page = `${SATELLITE}/dashboard?tab=1`;
    const sync = await browser("GET", `/v1/client/sync?redirect_url=${encodeURIComponent(page)}`);
    expect(sync.status).toBe(307);
    const link = new URL(sync.headers.get("location")!);
    expect(link.origin + link.pathname).toBe(`${SATELLITE}/__clerk/v1/client/link`);

    // The satellite's proxy forwards the link to the Frontend API, saying whose it is.
    const viaSatellite = { "Clerk-Proxy-Url": `${SATELLITE}/__clerk`, "Clerk-Secret-Key": secretKey };
    const linked = await get(`/v1/client/link${link.search}`, viaSatellite);
    expect(linked.status).toBe(307);
    expect(linked.headers.get("location")).toBe(`${SATELLITE}/dashboard?tab=1&__clerk_synced=true`);
    const cookies = linked.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("__client="))).toMatch(new RegExp(`^__client=${clientId};.*Path=/__clerk`));
    expect(cookies.find((c) => c.startsWith("__client_uat="))).not.toMatch(/^__client_uat=0;/);

    // The token works once.
    const again = await get(`/v1/client/link${link.search}`, viaSatellite);
    expect(again.status).toBe(400);
  });

  it("a sync token opened on another origin than the satellite's links nothing", async () => {
    const browser = await signedIn();
    const sync = await browser("GET", `/v1/client/sync?redirect_url=${encodeURIComponent(`${SATELLITE}/`)}`);
    const link = new URL(sync.headers.get("location")!);
    const elsewhere = await get(`/v1/client/link${link.search}`);
    expect([elsewhere.status, elsewhere.headers.getSetCookie()]).toEqual([403, []]);
  });

  it("a signed-out browser goes straight back, synced and still signed out", async () => {
    const sync = await get(`/v1/client/sync?redirect_url=${encodeURIComponent(`${SATELLITE}/a`)}`);
    expect([sync.status, sync.headers.get("location")]).toEqual([307, `${SATELLITE}/a?__clerk_synced=true`]);
  });

  it("sync never leads off the allowed origins, and link_domain must be the redirect's", async () => {
    for (const payload of OPEN_REDIRECT_PAYLOADS) {
      const r = await get(`/v1/client/sync?redirect_url=${encodeURIComponent(payload)}`);
      expect([payload, r.status, r.headers.get("location")]).toEqual([payload, 400, null]);
    }
    const wrong = await get(
      `/v1/client/sync?redirect_url=${encodeURIComponent(`${SATELLITE}/`)}&link_domain=evil.example`,
    );
    expect(wrong.status).toBe(400);
    expect((await get("/v1/client/link")).status).toBe(422);
  });
});

describe("what this production instance does not have", () => {
  it("development browsers: Clerk's 400 for a host that is not a development one", async () => {
    const browser = frontendClient(emu.origin);
    for (const [method, path] of [
      ["POST", "/v1/dev_browser"],
      ["POST", "/v1/dev_browser/set_first_party_cookie"],
      ["GET", "/v1/dev_browser/init"],
    ] as const) {
      const r = await browser(method, path);
      expect([path, r.status, errorCode(r)]).toEqual([path, 400, "host_invalid"]);
    }
  });

  it("the account portal is off", async () => {
    expect(await (await get("/v1/account_portal")).json()).toMatchObject({
      object: "account_portal",
      enabled: false,
      allowed: false,
    });
  });

  it("organization creation defaults: none suggested, and only for the signed-in", async () => {
    expect((await get("/v1/me/organization_creation_defaults")).status).toBe(401);
    const browser = await signedIn();
    const r = await browser("GET", "/v1/me/organization_creation_defaults");
    expect(r.body.response).toEqual({ form: { name: "", slug: "", logo: null, blur_hash: null }, advisory: null });
  });

  it("integration tokens, agent tasks: none exist", async () => {
    const browser = await signedIn();
    const token = await browser("POST", "/v1/me/tokens", { service: "firebase" });
    expect([token.status, errorCode(token)]).toEqual([404, "resource_not_found"]);
    expect((await browser("POST", "/v1/me/tokens", {})).status).toBe(422);
    expect((await get("/v1/agents/tasks?ticket=agt_nothing")).status).toBe(404);
    expect((await get("/v1/agents/tasks")).status).toBe(422);
  });

  it("clear-site-data asks the browser to forget this origin's data", async () => {
    const r = await get("/v1/clear-site-data");
    expect([r.status, r.headers.get("clear-site-data")]).toEqual([200, '"*"']);
  });
});
