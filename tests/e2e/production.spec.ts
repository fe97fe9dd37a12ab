import type { Browser, Response } from "@playwright/test";
import { Redis } from "ioredis";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { PUBLIC_HOST, publicRequest, startProductionStack, type ProductionStack } from "../support/production-stack";
import { scrapeMetrics } from "../support/metrics";
import { emulatorSession } from "../support/session";
import { expect, openGuardedContext, test } from "./fixtures";

// As deployed: https through nginx, two instances, Redis. One stack for the
// file, so its tests run in order in one worker (and only once: @js).
test.describe.configure({ mode: "serial" });

test.describe("behind a TLS proxy, on two instances with Redis @js", () => {
  test.setTimeout(90_000);
  let stack: ProductionStack;
  let browser: Browser;

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(90_000);
    stack = await startProductionStack();
    browser = await playwright.chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`],
    });
  });

  test.afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const linesOf = (server: { output(): string }, event: string) =>
    server
      .output()
      .split("\n")
      .filter((l) => l.includes(`"event":"${event}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  test("sign in, theme without JavaScript, invite with it, sign out: every POST succeeds, cookies are Secure", async () => {
    const options = { baseURL: stack.origin, ignoreHTTPSErrors: true };
    const js = await openGuardedContext(browser, options, [PUBLIC_HOST]);
    const page = await js.context.newPage();
    const failedPosts: string[] = [];
    const watch = (r: Response) => {
      if (r.request().method() === "POST" && r.status() >= 400) failedPosts.push(`${r.status()} ${r.url()}`);
    };
    page.on("response", watch);

    const first = await page.goto("/sign-in");
    expect(first?.headers()["strict-transport-security"]).toBe("max-age=63072000; includeSubDomains");
    await page.getByLabel("Email address").fill("ada@example.com");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByLabel("Password", { exact: true }).fill("teamwork-demo");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByTestId("user-menu-trigger")).toHaveAccessibleName("Account menu for Ada Lovelace", {
      timeout: 20_000,
    });

    // The same person, JavaScript off: the theme menu is a real form, posted through nginx.
    const nojs = await openGuardedContext(browser, { ...options, javaScriptEnabled: false }, [PUBLIC_HOST]);
    await nojs.context.addCookies(await js.context.cookies());
    const plain = await nojs.context.newPage();
    plain.on("response", watch);
    await plain.goto("/orgs");
    await plain.locator('[data-testid="theme-menu-fallback"] summary').click();
    await plain.getByRole("button", { name: "Dark" }).click();
    await expect(plain).toHaveURL(/\/orgs$/);
    await expect(plain.locator("html")).toHaveClass("dark");
    await nojs.close();

    // With JavaScript: an invitation (a POST through a Remix form).
    await page.goto("/orgs/analytical-engines/members");
    const address = `proxy-${Date.now().toString(36)}@example.com`;
    await page.getByLabel("Email address").fill(address);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByTestId("invite-sent")).toHaveText(`Invitation sent to ${address}.`);

    const cookies = await js.context.cookies();
    for (const name of ["__session", "__client_uat"]) {
      expect(cookies.find((c) => c.name === name)?.secure, name).toBe(true);
    }

    await page.getByTestId("user-menu-trigger").click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
    expect(failedPosts).toEqual([]);
    await js.close();
  });

  test("the theme cookie is Secure, and a cross-site POST through nginx is refused", async () => {
    const saved = await publicRequest(stack, "/resources/theme", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: stack.origin },
      body: "theme=dark&redirectTo=%2F",
    });
    expect(saved.status).toBe(303);
    expect(String(saved.headers["set-cookie"])).toMatch(/^theme=.*; Secure/);

    const forged = await publicRequest(stack, "/resources/theme", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
      body: "theme=dark",
    });
    expect(forged.status).toBe(403);
  });

  test("rate limits are shared: the 11th organization in an hour gets 429, across both instances", async () => {
    const s = await emulatorSession(stack.clerk.origin, "grace@example.com");
    const cookie = `__session=${s.sessionToken}; __client_uat=${s.clientUat}`;
    const statuses: number[] = [];
    for (let n = 0; n < 11; n++) {
      const res = await publicRequest(stack, "/orgs/new", {
        method: "POST",
        headers: { Cookie: cookie, Origin: stack.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: `name=Shared+Limit+${n}+${Date.now()}`,
        // Another loopback address: the client, as nginx forwards it.
        from: "127.0.0.7",
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(303), 429]);
    // Both instances counted some of them, and logged the forwarded client address, not nginx's.
    for (const instance of stack.instances) {
      const creates = linesOf(instance, "request").filter((l) => l.path === "/orgs/new" && l.method === "POST");
      expect(creates.length).toBeGreaterThan(0);
      expect(creates.every((l) => l.client === "127.0.0.7")).toBe(true);
    }
  });

  test("an organization created on one instance opens on the other, whose cached list predates it", async () => {
    const s = await emulatorSession(stack.clerk.origin, "katherine@example.com");
    const headers = { Cookie: `__session=${s.sessionToken}; __client_uat=${s.clientUat}`, Origin: stack.origin };
    // Both instances now hold this person's list (requests alternate between them).
    for (let n = 0; n < 2; n++) expect((await publicRequest(stack, "/orgs", { headers })).status).toBe(200);
    const created = await publicRequest(stack, "/orgs/new", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      body: `name=Cross+Instance+${Date.now()}`,
    });
    expect(created.status).toBe(303);
    const location = String(created.headers.location);
    // The other instance answers this one.
    const opened = await publicRequest(stack, location, { headers });
    expect(opened.status).toBe(200);
    expect(opened.body).toContain("Cross Instance");
  });

  test("each instance's metrics port counts the requests nginx sent it; the public /metrics is a 404", async () => {
    const before = await Promise.all(stack.metricsPorts.map((port) => scrapeMetrics(port)));
    for (let n = 0; n < 4; n++) expect((await publicRequest(stack, "/healthz")).status).toBe(200);
    expect((await publicRequest(stack, "/metrics")).status).toBe(404);
    const after = await Promise.all(stack.metricsPorts.map((port) => scrapeMetrics(port)));
    const health = 'http_requests_total{route="health",method="GET",status_class="2xx"}';
    const moved = after.map((samples, i) => (samples.get(health) ?? 0) - (before[i]!.get(health) ?? 0));
    // Round robin: each instance answered some, together all four.
    expect(moved.every((n) => n > 0)).toBe(true);
    expect(moved[0]! + moved[1]!).toBe(4);
    const notFound = 'http_requests_total{route="routes/$",method="GET",status_class="4xx"}';
    expect(after.reduce((sum, s, i) => sum + (s.get(notFound) ?? 0) - (before[i]!.get(notFound) ?? 0), 0)).toBe(1);
    for (const samples of after) expect(samples.get("redis_up")).toBe(1);
  });

  test("with Redis gone, no request fails and each instance warns once; readiness says which part", async () => {
    const s = await emulatorSession(stack.clerk.origin, "alan@example.com");
    const cookie = `__session=${s.sessionToken}; __client_uat=${s.clientUat}`;
    expect((await publicRequest(stack, "/readyz")).status).toBe(200);
    const statuses: number[] = [];
    const send = (n: number) =>
      publicRequest(stack, n % 2 ? "/resources/theme" : "/orgs", {
        method: n % 2 ? "POST" : "GET",
        headers: { Cookie: cookie, Origin: stack.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: n % 2 ? "theme=light&redirectTo=%2F" : undefined,
      }).then((r) => statuses.push(r.status));

    for (let n = 0; n < 10; n++) await send(n);
    await stack.stopRedis();
    for (let n = 10; n < 30; n++) await send(n);

    expect(statuses).toHaveLength(30);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const instance of stack.instances) {
      await expect.poll(() => linesOf(instance, "warning").filter((l) => l.component === "redis").length).toBe(1);
    }
    const ready = await publicRequest(stack, "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toBe("not ready: redis\n");
    for (const port of stack.metricsPorts) expect((await scrapeMetrics(port)).get("redis_up")).toBe(0);

    await stack.startRedis();
    // Both instances ready again (requests alternate between them)…
    for (let n = 0; n < 2; n++) {
      await expect.poll(async () => (await publicRequest(stack, "/readyz")).status, { timeout: 15_000 }).toBe(200);
    }
    for (const port of stack.metricsPorts) {
      await expect.poll(async () => (await scrapeMetrics(port)).get("redis_up")).toBe(1);
    }
    // …and counting in Redis again: the next uses land there.
    for (let n = 0; n < 2; n++) await send(1);
    const redis = new Redis(stack.redisUrl, { lazyConnect: true });
    try {
      await redis.connect();
      expect(Number(await redis.get(`teamwork:rate:theme:user:${s.userId}`))).toBe(2);
    } finally {
      redis.disconnect();
    }
  });
});
