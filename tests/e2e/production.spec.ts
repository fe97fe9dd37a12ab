import { CACHE_PREFIXES } from "../../server/redis-keys";
import type { Response } from "@playwright/test";
import { Redis } from "ioredis";
import { redisCacheStore } from "../../app/lib/cache/redis-store.server";
import { PUBLIC_HOST, publicRequest } from "../support/production-stack";
import { armFault, backendApi, emulatorCalls, newTeam, webhooksDelivered } from "../support/emulator-api";
import { scrapeMetrics } from "../support/metrics";
import type { RunningServer } from "../support/server";
import { emulatorSession } from "../support/session";
import { signedWebhook } from "../support/webhooks";
import { expect, openGuardedContext, test } from "./fixtures";
import { openSettings, saveInClerkForm } from "./organization-profile";
import { useProductionStack } from "./production-stack";

// As deployed: https through nginx, two instances, Redis, and a stand-in for
// Clerk that sends its webhooks. One stack for the file, so its tests run in
// order in one worker (and only once: @js).
test.describe.configure({ mode: "serial" });

test.describe("behind a TLS proxy, on two instances with Redis and Clerk's webhooks @js", () => {
  test.setTimeout(90_000);
  const running = useProductionStack();

  const linesOf = (server: { output(): string }, event: string) =>
    server
      .output()
      .split("\n")
      .filter((l) => l.includes(`"event":"${event}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  test("sign in, theme without JavaScript, invite with it, sign out: every POST succeeds, cookies are Secure", async () => {
    const options = { baseURL: running.stack.origin, ignoreHTTPSErrors: true };
    const js = await openGuardedContext(running.browser, options, [PUBLIC_HOST]);
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
    const nojs = await openGuardedContext(running.browser, { ...options, javaScriptEnabled: false }, [PUBLIC_HOST]);
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
    const saved = await publicRequest(running.stack, "/resources/theme", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: running.stack.origin },
      body: "theme=dark&redirectTo=%2F",
    });
    expect(saved.status).toBe(303);
    expect(String(saved.headers["set-cookie"])).toMatch(/^theme=.*; Secure/);

    const forged = await publicRequest(running.stack, "/resources/theme", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
      body: "theme=dark",
    });
    expect(forged.status).toBe(403);
  });

  test("rate limits are shared: the 11th organization in an hour gets 429, across both instances", async () => {
    const s = await emulatorSession(running.stack.clerk.origin, "grace@example.com");
    const cookie = `__session=${s.sessionToken}; __client_uat=${s.clientUat}`;
    const statuses: number[] = [];
    for (let n = 0; n < 11; n++) {
      const res = await publicRequest(running.stack, "/orgs/new", {
        method: "POST",
        headers: { Cookie: cookie, Origin: running.stack.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: `name=Shared+Limit+${n}+${Date.now()}`,
        // Another loopback address: the client, as nginx forwards it.
        from: "127.0.0.7",
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(303), 429]);
    // Both instances counted some of them, and logged the forwarded client address, not nginx's.
    for (const instance of running.stack.instances) {
      const creates = linesOf(instance, "request").filter((l) => l.path === "/orgs/new" && l.method === "POST");
      expect(creates.length).toBeGreaterThan(0);
      expect(creates.every((l) => l.client === "127.0.0.7")).toBe(true);
    }
  });

  test("an organization created on one instance opens on the other, whose cached list predates it", async () => {
    const s = await emulatorSession(running.stack.clerk.origin, "katherine@example.com");
    const headers = {
      Cookie: `__session=${s.sessionToken}; __client_uat=${s.clientUat}`,
      Origin: running.stack.origin,
    };
    // Both instances now hold this person's list (requests alternate between them).
    for (let n = 0; n < 2; n++) expect((await publicRequest(running.stack, "/orgs", { headers })).status).toBe(200);
    const created = await publicRequest(running.stack, "/orgs/new", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      body: `name=Cross+Instance+${Date.now()}`,
    });
    expect(created.status).toBe(303);
    const location = String(created.headers.location);
    // The other instance answers this one.
    const opened = await publicRequest(running.stack, location, { headers });
    expect(opened.status).toBe(200);
    expect(opened.body).toContain("Cross Instance");
  });

  test("each instance's metrics port counts the requests nginx sent it; the public /metrics is a 404", async () => {
    const before = await Promise.all(running.stack.metricsPorts.map((port) => scrapeMetrics(port)));
    for (let n = 0; n < 4; n++) expect((await publicRequest(running.stack, "/healthz")).status).toBe(200);
    expect((await publicRequest(running.stack, "/metrics")).status).toBe(404);
    const after = await Promise.all(running.stack.metricsPorts.map((port) => scrapeMetrics(port)));
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
    const s = await emulatorSession(running.stack.clerk.origin, "alan@example.com");
    const cookie = `__session=${s.sessionToken}; __client_uat=${s.clientUat}`;
    expect((await publicRequest(running.stack, "/readyz")).status).toBe(200);
    const statuses: number[] = [];
    const send = (n: number) =>
      publicRequest(running.stack, n % 2 ? "/resources/theme" : "/orgs", {
        method: n % 2 ? "POST" : "GET",
        headers: { Cookie: cookie, Origin: running.stack.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: n % 2 ? "theme=light&redirectTo=%2F" : undefined,
      }).then((r) => statuses.push(r.status));

    for (let n = 0; n < 10; n++) await send(n);
    await running.stack.stopRedis();
    for (let n = 10; n < 30; n++) await send(n);

    expect(statuses).toHaveLength(30);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const instance of running.stack.instances) {
      await expect.poll(() => linesOf(instance, "warning").filter((l) => l.component === "redis").length).toBe(1);
    }
    // The public is told only that it is not ready; the platform, asking an instance directly, which part.
    const ready = await publicRequest(running.stack, "/readyz");
    expect([ready.status, ready.body]).toEqual([503, "not ready\n"]);
    for (const instance of running.stack.instances) {
      await expect
        .poll(async () => {
          const direct = await fetch(`${instance.origin}/readyz`);
          return [direct.status, await direct.text()];
        })
        .toEqual([503, "not ready: redis\n"]);
    }
    for (const port of running.stack.metricsPorts) expect((await scrapeMetrics(port)).get("redis_up")).toBe(0);

    await running.stack.startRedis();
    // Both instances ready again (requests alternate between them)…
    for (let n = 0; n < 2; n++) {
      await expect
        .poll(async () => (await publicRequest(running.stack, "/readyz")).status, { timeout: 15_000 })
        .toBe(200);
    }
    for (const port of running.stack.metricsPorts) {
      await expect.poll(async () => (await scrapeMetrics(port)).get("redis_up")).toBe(1);
    }
    // …and counting in Redis again: the next uses land there.
    for (let n = 0; n < 2; n++) await send(1);
    const redis = new Redis(running.stack.redisUrl, { lazyConnect: true });
    try {
      await redis.connect();
      expect(Number(await redis.get(`teamwork:rate:theme:user:${s.userId}`))).toBe(2);
    } finally {
      redis.disconnect();
    }
  });

  // Clerk's answers, cached once for both instances (Redis) and kept fresh by the
  // webhooks the stand-in for Clerk sends through nginx, as Clerk does.
  const bapi = (...args: Parameters<ReturnType<typeof backendApi>>) =>
    backendApi(running.stack.clerk.origin, running.stack.clerk.dataDir)(...args);

  /** A signed-in person's session, its token naming `orgId` as the active organization. */
  async function sessionOf(email: string, orgId?: string) {
    const session = await emulatorSession(running.stack.clerk.origin, email, orgId);
    return { ...session, cookie: session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ") };
  }

  /** A page as one instance answers it (straight to it, not through nginx). */
  async function view(instance: RunningServer, path: string, cookie: string) {
    const res = await fetch(instance.origin + path, { headers: { Cookie: cookie }, redirect: "manual" });
    return { status: res.status, html: await res.text() };
  }

  /**
   * Polls both instances every 25 ms until `holds` is true of each one's
   * answer (5 s at the most): how long the slower one took, in ms.
   */
  async function untilBoth(since: number, holds: (instance: RunningServer) => Promise<boolean>) {
    const took = await Promise.all(
      running.stack.instances.map(async (instance) => {
        while (!(await holds(instance))) {
          if (Date.now() - since > 5_000) throw new Error(`${instance.origin} did not change within 5 s`);
          await new Promise((r) => setTimeout(r, 25));
        }
        return Date.now() - since;
      }),
    );
    return Math.max(...took);
  }

  test("a rename in Clerk's <OrganizationProfile/> shows on both instances within 1 s", async () => {
    const { org, admin } = await newTeam(bapi);
    const person = await sessionOf(admin.email, org.id);
    // Both instances hold the organization (in Redis, and each its own copy).
    for (const instance of running.stack.instances) {
      expect((await view(instance, `/orgs/${org.slug}`, person.cookie)).html).toContain(org.name);
    }

    const { context } = await openGuardedContext(
      running.browser,
      { baseURL: running.stack.origin, ignoreHTTPSErrors: true },
      [PUBLIC_HOST],
    );
    await context.addCookies(person.cookies.map((cookie) => ({ ...cookie, domain: PUBLIC_HOST, secure: true })));
    const page = await context.newPage();
    const profile = await openSettings(page, org.slug);
    await profile.getByRole("button", { name: "Update profile" }).click();
    const name = `Renamed ${Date.now().toString(36)}`;
    expect((await saveInClerkForm(page, org.id, profile.getByLabel("Name"), name)).status()).toBe(200);
    const saved = Date.now();

    const took = await untilBoth(saved, async (instance) =>
      (await view(instance, `/orgs/${org.slug}`, person.cookie)).html.includes(`<title>${name} — Teamwork</title>`),
    );
    expect(took).toBeLessThan(1_000);
    await context.close();
  });

  test("a member removed through the Backend API loses access on both instances within 1 s, token or not", async () => {
    const { org, members } = await newTeam(bapi, { members: 1 });
    const member = members[0]!;
    // The member's session token names the organization and their role in it.
    const person = await sessionOf(member.email, org.id);
    for (const instance of running.stack.instances) {
      expect((await view(instance, `/orgs/${org.slug}`, person.cookie)).status).toBe(200);
    }

    expect((await bapi("DELETE", `/v1/organizations/${org.id}/memberships/${member.id}`)).status).toBe(200);
    const removed = Date.now();
    const took = await untilBoth(
      removed,
      async (instance) => (await view(instance, `/orgs/${org.slug}`, person.cookie)).status === 404,
    );
    expect(took).toBeLessThan(1_000);
  });

  test("Clerk answering 429 with Retry-After: 3 holds both instances back 3 s; pages with a copy answer 200", async () => {
    const { org, admin } = await newTeam(bapi, { members: 2 });
    const person = await sessionOf(admin.email, org.id);
    const members = "bapi GET /v1/organizations/:id/memberships";
    const calls = async () => (await emulatorCalls(running.stack.clerk.origin))[members] ?? 0;
    const directory = (instance: RunningServer, query: string) =>
      view(instance, `/orgs/${org.slug}/members?q=${query}`, person.cookie);
    const [a, b] = running.stack.instances;
    // The new team's membership webhooks forget its directory: the copy is kept after they land.
    await webhooksDelivered(running.stack.clerk.origin);
    expect((await directory(a, "member")).status).toBe(200);

    await armFault(running.stack.clerk.origin, {
      endpoint: members,
      mode: "error",
      status: 429,
      retryAfter: "3",
      times: 1,
    });
    // The hold starts when the instance meets the 429: after this, and before the 503 is back.
    const asked = Date.now();
    expect((await directory(a, "admin")).status).toBe(503);
    const heldAt = Date.now();
    const before = await calls();
    // Neither instance calls the endpoint now: without a copy, a 503; with one, the page.
    expect((await directory(b, "nobody")).status).toBe(503);
    expect((await directory(a, "nobody")).status).toBe(503);
    for (const instance of running.stack.instances) expect((await directory(instance, "member")).status).toBe(200);
    expect(await calls()).toBe(before);
    expect(Date.now() - heldAt).toBeLessThan(3_000);

    await expect.poll(async () => (await directory(b, "nobody")).status, { timeout: 6_000 }).toBe(200);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(3_000);
  });

  test("a webhook applied on one instance is not applied again when replayed to the other", async () => {
    const { org } = await newTeam(bapi);
    const webhook = signedWebhook(running.stack.webhookSecret, {
      type: "organization.updated",
      data: { id: org.id, object: "organization" },
    });
    const [a, b] = running.stack.instances;
    const deliver = async (instance: RunningServer) => {
      const res = await fetch(`${instance.origin}/webhooks/clerk`, { method: "POST", ...webhook });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    expect(await deliver(a)).toEqual({ status: 200, message: "Applied." });
    expect(await deliver(b)).toEqual({ status: 200, message: "Already applied." });
  });

  test("Redis turned read-only (a failover) during a webhook: 503, the old copy is not acknowledged away, and Svix's retry applies it", async () => {
    test.setTimeout(120_000);
    const { org, admin, members } = await newTeam(bapi, { members: 1 });
    const member = members[0]!;
    const person = await sessionOf(admin.email, org.id);
    const [a] = running.stack.instances;
    // The new team's membership webhooks forget its pages: the copy is kept after they land.
    await webhooksDelivered(running.stack.clerk.origin);
    expect((await view(a, `/orgs/${org.slug}`, person.cookie)).status).toBe(200);
    const redis = new Redis(running.stack.redisUrl, { lazyConnect: true });
    /** Whether Redis holds the organization's newest members as a read would serve them (a forgotten copy stays, unserved, until it expires). */
    const kept = async () =>
      (await redisCacheStore(redis, CACHE_PREFIXES).read("latestMembers", org.id)).stored !== null;
    // The member renamed: the webhook reads their organizations from Clerk (slowly, here) before it drops the copies.
    const lookup = "bapi GET /v1/users/:id/organization_memberships";
    const lookups = async () => (await emulatorCalls(running.stack.clerk.origin))[lookup] ?? 0;
    await armFault(running.stack.clerk.origin, {
      endpoint: lookup,
      mode: "slow",
      delayMs: 1_500,
      times: 1,
      pathIncludes: member.id,
    });
    const renamed = { type: "user.updated", data: { id: member.id, object: "user", first_name: "Renamed" } };
    const id = `msg_readonly_${Date.now()}`;
    // Each delivery as Svix makes it: the same id, signed anew.
    const deliver = async () => {
      const webhook = signedWebhook(running.stack.webhookSecret, renamed, { id });
      const res = await fetch(`${a.origin}/webhooks/clerk`, { method: "POST", ...webhook });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    try {
      await redis.connect();
      expect(await kept()).toBe(true);
      const before = await lookups();
      const first = deliver();
      // Once the webhook is inside its Clerk lookup, Redis becomes a replica of nothing: read-only.
      await expect.poll(lookups).toBeGreaterThan(before);
      await redis.replicaof("127.0.0.1", "9");
      expect(await first).toEqual({ status: 503, message: "Redis or Clerk is unavailable; try again later." });
    } finally {
      await redis.replicaof("NO", "ONE");
    }
    try {
      // Not acknowledged, so not lost: the copy is still there, and Svix's next delivery is not told "Already applied".
      expect(await kept()).toBe(true);
      expect(await deliver()).toEqual({ status: 503, message: "This message is being applied; try again later." });
      // The failed delivery's claim frees itself within 30 s, before Svix's 5-minute retry, which applies it.
      await expect.poll(async () => (await deliver()).status, { timeout: 45_000, intervals: [1_000] }).toBe(200);
      expect(await kept()).toBe(false);
      expect(await deliver()).toEqual({ status: 200, message: "Already applied." });
    } finally {
      redis.disconnect();
    }
  });

  test("with Redis gone, pages keep answering from each instance's memory, and webhooks get 503 so Clerk retries", async () => {
    const { org, admin } = await newTeam(bapi, { members: 1 });
    const person = await sessionOf(admin.email, org.id);
    await running.stack.stopRedis();
    try {
      for (let n = 0; n < 4; n++) {
        for (const instance of running.stack.instances) {
          for (const path of [`/orgs/${org.slug}`, `/orgs/${org.slug}/members`, "/orgs"]) {
            expect((await view(instance, path, person.cookie)).status).toBe(200);
          }
        }
      }
      const webhook = signedWebhook(running.stack.webhookSecret, {
        type: "organization.updated",
        data: { id: org.id, object: "organization" },
      });
      for (const instance of running.stack.instances) {
        const res = await fetch(`${instance.origin}/webhooks/clerk`, { method: "POST", ...webhook });
        expect(res.status).toBe(503);
      }
    } finally {
      await running.stack.startRedis();
    }
  });
});
