import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureSink, type CaptureSink, type CapturedEvent } from "../support/capture-sink";
import { startServer, type RunningServer } from "../support/server";
import { stalledPost } from "../support/stalled-bodies";
import { emulatorCookie } from "../support/session";

// Server-side analytics and the /ingest proxy, against a local capture sink
// standing in for PostHog.
let sink: CaptureSink;
let server: RunningServer;

beforeAll(async () => {
  sink = await startCaptureSink();
  server = await startServer({ POSTHOG_KEY: "phc_integration", POSTHOG_HOST: sink.origin, LOG_LEVEL: "silent" });
});

afterAll(async () => {
  if (server.child.exitCode === null) await server.stop();
  await sink.close();
});

async function signedIn(person: string) {
  return emulatorCookie(server.origin, `${person}@example.com`);
}

const post = (path: string, fields: Record<string, string>, headers: Record<string, string>) =>
  fetch(server.origin + path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

/** Waits (up to the client's 5 s flush interval and a margin) for events matching `match`. */
async function eventually(match: (e: CapturedEvent) => boolean, count = 1): Promise<CapturedEvent[]> {
  const deadline = Date.now() + 9_000;
  for (;;) {
    const found = sink.events.filter(match);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function orgIdOf(slug: string): Promise<string> {
  const state = (await (await fetch(`${server.origin}/__clerk/_emulator/state`)).json()) as {
    organizations: { id: string; slug: string }[];
  };
  return state.organizations.find((o) => o.slug === slug)!.id;
}

describe("server events", () => {
  it("creating an organization and inviting a member each send one event, with the user and the organization", async () => {
    const alan = await signedIn("alan");
    expect((await post("/orgs/new", { name: "Colossus Works" }, { Cookie: alan })).status).toBe(303);
    const orgId = await orgIdOf("colossus-works");

    const created = await eventually((e) => e.event === "organization created");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ distinctId: "user_seed_alan", groups: { organization: orgId } });

    const invite = await post(
      "/orgs/colossus-works/members",
      { emailAddress: "tommy@example.com", role: "org:member" },
      { Cookie: alan },
    );
    expect(invite.status).toBe(200);
    const invited = await eventually((e) => e.event === "member invited");
    expect(invited).toHaveLength(1);
    expect(invited[0]).toMatchObject({ distinctId: "user_seed_alan", groups: { organization: orgId } });
    expect(invited[0]!.properties.role).toBe("org:member");
    expect(JSON.stringify(invited[0])).not.toContain("tommy@example.com");
    // Nothing else was sent meanwhile (no doubles, no stray events).
    expect(sink.events.filter((e) => e.event === "organization created" || e.event === "member invited")).toHaveLength(
      2,
    );
  });

  it("a theme change is one event with the chosen theme", async () => {
    const katherine = await signedIn("katherine");
    await post("/resources/theme", { theme: "dark" }, { Cookie: katherine });
    const changed = await eventually((e) => e.event === "theme changed" && e.distinctId === "user_seed_katherine");
    expect(changed).toHaveLength(1);
    expect(changed[0]!.properties.theme).toBe("dark");
  });

  it("sends nothing for Do Not Track, Global Privacy Control or the opt-out cookie", async () => {
    const edsger = await signedIn("edsger");
    await post("/resources/theme", { theme: "light" }, { Cookie: edsger, DNT: "1" });
    await post("/resources/theme", { theme: "light" }, { Cookie: edsger, "Sec-GPC": "1" });
    await post("/resources/theme", { theme: "light" }, { Cookie: `${edsger}; analytics_opt_out=1` });
    // A marker event after them: once it arrives, anything before it would have too.
    await post("/resources/theme", { theme: "system" }, { Cookie: edsger });
    await eventually((e) => e.distinctId === "user_seed_edsger" && e.properties.theme === "system");
    expect(sink.events.filter((e) => e.distinctId === "user_seed_edsger").map((e) => e.properties.theme)).toEqual([
      "system",
    ]);
  });

  it("the opt-out form sets a year-long HttpOnly cookie and goes back; opting in clears it", async () => {
    const off = await post("/resources/analytics", { analytics: "off", redirectTo: "/orgs?x=1" }, {});
    expect(off.status).toBe(303);
    expect(off.headers.get("location")).toBe("/orgs?x=1");
    const set = off.headers.get("set-cookie") ?? "";
    expect(set).toMatch(/^analytics_opt_out=1;/);
    for (const attribute of ["Max-Age=31536000", "Path=/", "SameSite=Lax", "HttpOnly"])
      expect(set).toContain(attribute);
    const on = await post("/resources/analytics", { analytics: "on", redirectTo: "https://evil.example/" }, {});
    expect(on.headers.get("location")).toBe("/");
    expect(on.headers.get("set-cookie")).toMatch(/^analytics_opt_out=; Max-Age=0/);
    expect((await post("/resources/analytics", { analytics: "maybe" }, {})).status).toBe(400);
    for (const to of ["/.//evil.example", "/..//evil.example", "/%2e//evil.example", "/a/..//evil.example"]) {
      expect(
        (await post("/resources/analytics", { analytics: "on", redirectTo: to }, {})).headers.get("location"),
      ).toBe("/");
    }
  });
});

describe("the /ingest proxy", () => {
  it("forwards the browser's events to PostHog without our cookies or the person's address", async () => {
    const before = (await (await fetch(`${sink.origin}/_sink/requests`)).json()) as unknown[];
    const res = await fetch(`${server.origin}/ingest/e/?ip=0&ver=1.434.18`, {
      method: "POST",
      headers: {
        "Content-Type": "text/plain",
        Cookie: "__session=secret-token; theme=dark",
        Authorization: "Bearer nope",
        "X-Forwarded-For": "203.0.113.9",
      },
      body: JSON.stringify([
        {
          event: "$pageview",
          properties: { distinct_id: "anon-1", $current_url: "http://x/", token: "phc_integration" },
        },
      ]),
    });
    expect(res.status).toBe(200);
    expect(sink.events).toContainEqual(
      expect.objectContaining({ event: "$pageview", distinctId: "anon-1", path: "/e/" }),
    );
    const requests = ((await (await fetch(`${sink.origin}/_sink/requests`)).json()) as Record<string, string>[]).slice(
      before.length,
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]).not.toHaveProperty("cookie");
    expect(requests[0]).not.toHaveProperty("authorization");
    expect(requests[0]).not.toHaveProperty("x-forwarded-for");
  });

  it("refuses odd paths, methods and oversized bodies", async () => {
    expect((await fetch(`${server.origin}/ingest/e/%3Cscript%3E`)).status).toBe(400);
    expect((await fetch(`${server.origin}/ingest/e/`, { method: "DELETE" })).status).toBe(405);
    // Refused before it is read: sent as a client whose head and first bytes arrive together, so the
    // answer is read as a browser reads it (fetch, still writing the rest, could meet the reset first).
    const big = stalledPost(server, {
      path: "/ingest/e/",
      client: "198.51.100.200",
      declared: 1_100_000,
      sent: 16_000,
      type: "text/plain",
    });
    try {
      expect((await big.answer).status).toBe(413);
    } finally {
      big.socket.destroy();
    }
  });
});

describe("shutdown", () => {
  it("SIGTERM sends the queued events before the process exits", async () => {
    const grace = await signedIn("grace");
    await post("/resources/theme", { theme: "dark" }, { Cookie: grace });
    // Well inside the 5 s flush interval: only the shutdown can have sent it.
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(sink.events.filter((e) => e.distinctId === "user_seed_grace" && e.event === "theme changed")).toHaveLength(
      1,
    );
  });
});

describe("without POSTHOG_KEY", () => {
  it("the proxy does not exist and no analytics settings reach the page", async () => {
    const keyless = await startServer({ LOG_LEVEL: "silent" });
    try {
      expect((await fetch(`${keyless.origin}/ingest/e/`, { method: "POST", body: "[]" })).status).toBe(404);
      const html = await (await fetch(`${keyless.origin}/`)).text();
      expect(html).toContain("Teamwork");
      expect(html).not.toMatch(/phc_|posthog/i);
    } finally {
      await keyless.stop();
    }
  });
});
