import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysModeEnv, startServer, type RunningServer } from "../support/server";
import { createTestKeyPair, mintSessionToken, sessionCookieHeader } from "../support/session";

// The server as deployed with Clerk keys: sessions verified offline with
// CLERK_JWT_KEY, Clerk's APIs unreachable (and never needed for these pages).
const keys = createTestKeyPair();
let server: RunningServer;

beforeAll(async () => {
  server = await startServer(keysModeEnv(keys.publicKeyPem));
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.origin + path, { headers: { Accept: "text/html", ...headers }, redirect: "manual" });

function htmlClass(html: string): string | null {
  return /<html[^>]*class="([^"]*)"/.exec(html)?.[1] ?? null;
}

async function themeCookie(theme: string): Promise<string> {
  const res = await fetch(`${server.origin}/resources/theme`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ theme }),
    redirect: "manual",
  });
  const cookie = res.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0] ?? "";
}

describe("first paint: the theme is decided on the server", () => {
  it("asks Chromium for the colour-scheme hint on every document", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("accept-ch")).toBe("Sec-CH-Prefers-Color-Scheme");
    expect(res.headers.get("critical-ch")).toBe("Sec-CH-Prefers-Color-Scheme");
    expect(res.headers.get("vary")).toMatch(/Sec-CH-Prefers-Color-Scheme/);
    expect(res.headers.get("vary")).toMatch(/Cookie/);
  });

  it("without cookie or hint, leaves the class to remix-themes' pre-paint script", async () => {
    const html = await (await get("/")).text();
    expect(htmlClass(html)).toBeNull();
    expect(html).toMatch(/<meta name="color-scheme" content="(light dark|dark light)"\/>/);
    expect(html).toMatch(/<script nonce="[^"]+">\s*\(\(\) => \{\s*const theme = window\.matchMedia\(/);
  });

  it.each(["dark", "light"])("with system preference and hint %s, paints it from the server", async (hint) => {
    const html = await (await get("/", { "Sec-CH-Prefers-Color-Scheme": hint })).text();
    expect(htmlClass(html)).toBe(hint);
    // The painted scheme first: that is the one form controls use until the stylesheet says so too.
    expect(html).toMatch(new RegExp(`<meta name="color-scheme" content="${hint} (light|dark)"/>`));
    expect(html).not.toContain("matchMedia(");
  });

  it.each(["dark", "light"])("an explicit %s preference beats the OS hint", async (theme) => {
    const cookie = await themeCookie(theme);
    const other = theme === "dark" ? "light" : "dark";
    const html = await (await get("/", { Cookie: cookie, "Sec-CH-Prefers-Color-Scheme": other })).text();
    expect(htmlClass(html)).toBe(theme);
  });

  it("ignores a tampered theme cookie", async () => {
    const html = await (await get("/", { Cookie: "theme=ImRhcmsi.forged" })).text();
    expect(htmlClass(html)).toBeNull();
  });
});

describe("POST /resources/theme", () => {
  const post = (body: string, type = "application/x-www-form-urlencoded", headers: Record<string, string> = {}) =>
    fetch(`${server.origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": type, ...headers },
      body,
      redirect: "manual",
    });

  it("sets a signed, one-year, HttpOnly, Lax, Secure cookie named theme and redirects back", async () => {
    const res = await post("theme=dark&redirectTo=%2Fsign-in%3Fa%3D1");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in?a=1");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^theme=[^;]+\./);
    expect(cookie).toMatch(/Max-Age=31536000/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
  });

  it.each([
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
    "/a/..//evil.example",
  ])("never redirects off-site (%s)", async (to) => {
    const res = await post(new URLSearchParams({ theme: "light", redirectTo: to }).toString());
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
  });

  it("answers an invalid value with 400, a readable message, and no cookie", async () => {
    const res = await post(
      "theme=%3Cscript%3Ealert(1)%3C%2Fscript%3E&redirectTo=%2F",
      "application/x-www-form-urlencoded",
      {
        Accept: "text/html",
      },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("set-cookie") ?? "").not.toMatch(/theme=/);
    const html = await res.text();
    expect(html).toContain("Choose one of: light, dark, system.");
    expect(html).not.toContain("<script>alert(1)</script>");
  });

  it("the menu's fetcher (a form without redirectTo) gets the cookie and stays on the page", async () => {
    const res = await post("theme=system", "application/x-www-form-urlencoded");
    expect(res.status).toBe(200);
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const html = await (await get("/resources/theme", { Cookie: cookie })).text();
    expect(html).toMatch(
      /value="system"[^>]*checked|checked[^>]*value="system"|aria-checked="true"[^>]*value="system"|value="system"[^>]*aria-checked="true"/,
    );
  });

  it("refuses a JSON body with a 400 and no cookie: there is one way to submit", async () => {
    const res = await post('{"theme":null}', "application/json");
    expect(res.status).toBe(400);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("signed-in requests (real @clerk/remix verification, no network)", () => {
  it("show the user menu with the name from the session claims", async () => {
    const { token, iat } = mintSessionToken({ privateKey: keys.privateKey, userId: "user_1", name: "Ada Lovelace" });
    const html = await (await get("/user", { Cookie: sessionCookieHeader(token, iat) })).text();
    expect(html).toContain('aria-label="Account menu for Ada Lovelace"');
    expect(html).not.toContain(">Sign in</a>");
  });

  it("signed out, show Sign in and Sign up", async () => {
    const html = await (await get("/")).text();
    expect(html).toContain('href="/sign-in"');
    expect(html).toContain('href="/sign-up"');
    expect(html).not.toContain("Account menu");
  });

  it("a token signed by another key counts as signed out", async () => {
    const stranger = createTestKeyPair();
    const { token, iat } = mintSessionToken({ privateKey: stranger.privateKey, userId: "user_1", name: "Mallory" });
    const res = await get("/", { Cookie: sessionCookieHeader(token, iat) });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain("Mallory");
  });

  it("the profile page needs a session and sends you to sign in with a way back", async () => {
    const res = await get("/user");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/sign-in?redirect_url=%2Fuser");
    const { token, iat } = mintSessionToken({ privateKey: keys.privateKey, userId: "user_1" });
    expect((await get("/user", { Cookie: sessionCookieHeader(token, iat) })).status).toBe(200);
  });
});

describe("pages and HTTP basics", () => {
  it("an unknown path is a friendly 404 inside the navigation bar", async () => {
    const res = await get("/no/such/page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Page not found");
    expect(html).toContain('class="nav-bar"');
  });

  it.each(["/sign-in", "/sign-in/factor-one", "/sign-up", "/sign-up/verify-email-address"])(
    "%s renders",
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("needs JavaScript");
    },
  );

  it("/healthz answers ok", async () => {
    const res = await fetch(`${server.origin}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
  });

  it("fingerprinted assets are cached for a year, immutable; no X-Powered-By", async () => {
    const html = await (await get("/")).text();
    const asset = /href="(\/build\/_assets\/first-paint-[^"]+\.css)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const res = await fetch(server.origin + asset);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-powered-by")).toBeNull();
  });

  it("compresses HTML", async () => {
    const res = await get("/", { "Accept-Encoding": "gzip" });
    expect(res.headers.get("content-encoding")).toBe("gzip");
  });

  it("on a first visit holds the fonts back until the page has painted, and preloads no font", async () => {
    const html = await (await get("/")).text();
    expect(html).not.toMatch(/<link rel="preload"[^>]*as="font"/);
    expect(html).toContain('d.setAttribute(w,"first-paint")');
    expect(html).toContain('getEntriesByName("first-contentful-paint")');
  });

  it("preloads both fonts that the one stylesheet uses, for a browser that has them (fonts-kept)", async () => {
    const html = await (await get("/", { Cookie: "fonts-kept=1" })).text();
    expect(html).not.toContain("d.setAttribute(w,");
    const preloads = [...html.matchAll(/<link rel="preload" href="([^"]+\.woff2)" as="font"/g)].map((m) => m[1]);
    expect(preloads).toHaveLength(2);
    const cssHref = /href="(\/build\/_assets\/first-paint-[^"]+\.css)"/.exec(html)?.[1];
    const css = await (await fetch(server.origin + cssHref)).text();
    for (const href of preloads) expect(css).toContain(`url(${href})`);
  });

  it("on Clerk's screens, preloads clerk-js and the screen's chunks from a script, and no fonts", async () => {
    const html = await (await get("/sign-in")).text();
    expect(html).not.toMatch(/<link rel="preload"[^>]*as="font"/);
    // Held back in JavaScript only (app/lib/web-fonts.ts), until Clerk's card is drawn (clerk-first.ts lifts
    // the mark): without it the stylesheet's fonts come as anywhere.
    expect(html).toContain('d.setAttribute(w,"clerk-screen")');
    expect(html).not.toContain('getEntriesByName("first-contentful-paint")');
    const preloads = /(\[\{"href":"\/_clerk-js\/clerk\.browser\.js".*?\])\.forEach/.exec(html)?.[1];
    const hrefs = (JSON.parse(preloads!) as { href: string }[]).map((p) => p.href);
    expect(hrefs.map((href) => href.replace(/_clerk\.browser_.*$/, ""))).toEqual([
      "/_clerk-js/clerk.browser.js",
      "/_clerk-js/framework",
      "/_clerk-js/vendors",
      "/_clerk-js/ui-common",
      "/_clerk-js/signin",
    ]);
    for (const href of hrefs) expect((await fetch(server.origin + href)).status).toBe(200);
  });

  it("on Clerk's screens, runs no scroll script before hydration (its sessionStorage read holds up the parser)", async () => {
    // Remix's <ScrollRestoration> script: on other pages it restores a reloaded page's scroll before hydration.
    const script = /<script[^>]*>\(\(STORAGE_KEY, restoreKey\) =>/;
    expect(await (await get("/")).text()).toMatch(script);
    expect(await (await get("/sign-in")).text()).not.toMatch(script);
    expect(await (await get("/sign-up")).text()).not.toMatch(script);
  });

  it("does not mount the Clerk emulator when keys are set", async () => {
    expect((await fetch(`${server.origin}/__clerk/v1/environment`)).status).toBe(404);
  });
});
