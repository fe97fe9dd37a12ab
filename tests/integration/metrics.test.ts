import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { armFault } from "../support/emulator-api";
import { parseMetrics } from "../support/metrics";
import { freePort, postForm, startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";

// Prometheus metrics on their own port: traffic of every kind moves the
// counters it should, by as much as it should, and nothing is public.
const MEMBERS = "bapi GET /v1/organizations/:id/memberships";
let server: RunningServer;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  // Theme changes limited to 3 a minute, so the 4th is refused.
  server = await startServer({ LOG_LEVEL: "silent", METRICS_PORT: String(metricsPort), RATE_LIMIT_SCALE: "0.1" });
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

beforeEach(async () => {
  await fetch(`${server.origin}/__clerk/_emulator/faults`, { method: "DELETE" });
});

type Samples = Map<string, number>;

/**
 * The metrics once every request is counted: a request is counted when its
 * connection says it is done, which can come just after the client has the
 * answer, so read until none is in flight.
 */
async function scrape(): Promise<Samples> {
  for (let tries = 0; ; tries++) {
    const samples = await scrapeOnce();
    if (samples.get("http_requests_in_flight") === 0 || tries === 50) return samples;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function scrapeOnce(): Promise<Samples> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

/** A sample's key as the exposition format writes it (labels in the order given). */
const key = (name: string, labels: Record<string, string> = {}) => {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return pairs.length ? `${name}{${pairs.join(",")}}` : name;
};

const moved = (before: Samples, after: Samples, name: string, labels: Record<string, string> = {}) =>
  (after.get(key(name, labels)) ?? 0) - (before.get(key(name, labels)) ?? 0);

const arm = (fault: Parameters<typeof armFault>[1]) => armFault(server.origin, fault);

const get = (path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });

const membersEndpoint = (outcome: string) => ({
  endpoint: "organizations.getOrganizationMembershipList",
  outcome,
});
const membersPage = (statusClass: string) => ({
  route: "routes/orgs.$slug.members",
  method: "GET",
  status_class: statusClass,
});

describe("what the counters say", () => {
  it("a Clerk 503 that is retried: one retried attempt, one ok, and the page answers 200", async () => {
    const cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
    await arm({ endpoint: MEMBERS, mode: "error", status: 503, times: 1 });
    const before = await scrape();
    expect((await get("/orgs/analytical-engines/members?q=retried", cookie)).status).toBe(200);
    const after = await scrape();
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("retried"))).toBe(1);
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("ok"))).toBe(1);
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("gave_up"))).toBe(0);
    expect(
      moved(before, after, "clerk_backend_request_duration_seconds_count", {
        endpoint: "organizations.getOrganizationMembershipList",
      }),
    ).toBe(2);
    expect(moved(before, after, "http_requests_total", membersPage("2xx"))).toBe(1);
  });

  it("a Clerk 503 that lasts: three retried attempts, then one given up, and the page answers 503", async () => {
    const cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
    await arm({ endpoint: MEMBERS, mode: "error", status: 503, times: 4 });
    const before = await scrape();
    expect((await get("/orgs/analytical-engines/members?q=gave-up", cookie)).status).toBe(503);
    const after = await scrape();
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("retried"))).toBe(3);
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("gave_up"))).toBe(1);
    expect(moved(before, after, "clerk_backend_requests_total", membersEndpoint("ok"))).toBe(0);
    expect(moved(before, after, "http_requests_total", membersPage("5xx"))).toBe(1);
    expect(moved(before, after, "http_request_duration_seconds_count", { ...membersPage("5xx") })).toBe(1);
  });

  it("a second view within the cache's seconds is a hit", async () => {
    const cookie = await emulatorCookie(server.origin, "grace@example.com", "org_seed_difference");
    const before = await scrape();
    expect((await get("/orgs/difference-co", cookie)).status).toBe(200);
    expect((await get("/orgs/difference-co", cookie)).status).toBe(200);
    const after = await scrape();
    const hits = moved(before, after, "cache_lookups_total", { cache: "profiles", result: "hit" });
    const misses = moved(before, after, "cache_lookups_total", { cache: "profiles", result: "miss" });
    // The layout and the page each look it up: the first view misses once at most, the rest hit.
    expect([hits + misses, hits >= 3]).toEqual([4, true]);
    expect(
      moved(before, after, "http_requests_total", {
        route: "routes/orgs.$slug._index",
        method: "GET",
        status_class: "2xx",
      }),
    ).toBe(2);
  });

  it("the 4th theme change in a minute is refused and counted under its limit", async () => {
    const cookie = await emulatorCookie(server.origin, "alan@example.com");
    const before = await scrape();
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await postForm(server, "/resources/theme", { theme: "dark", redirectTo: "/" }, cookie)).status);
    expect(statuses).toEqual([303, 303, 303, 429]);
    const after = await scrape();
    expect(moved(before, after, "rate_limit_refusals_total", { limit: "theme" })).toBe(1);
    expect(
      moved(before, after, "http_requests_total", {
        route: "routes/resources.theme",
        method: "POST",
        status_class: "4xx",
      }),
    ).toBe(1);
  });

  it("requests Remix never sees are named by what answered them, and data requests by their page", async () => {
    const cookie = await emulatorCookie(server.origin, "grace@example.com", "org_seed_difference");
    const before = await scrape();
    await get("/healthz", "");
    await get("/favicon.svg", "");
    expect((await get("/orgs/difference-co.data", cookie)).status).toBe(200);
    const after = await scrape();
    expect(moved(before, after, "http_requests_total", { route: "health", method: "GET", status_class: "2xx" })).toBe(
      1,
    );
    expect(moved(before, after, "http_requests_total", { route: "static", method: "GET", status_class: "2xx" })).toBe(
      1,
    );
    expect(
      moved(before, after, "http_requests_total", {
        route: "routes/orgs.$slug._index",
        method: "GET",
        status_class: "2xx",
      }),
    ).toBe(1);
  });

  it("has the process metrics and nothing in flight between requests", async () => {
    const now = await scrape();
    expect(now.get("http_requests_in_flight")).toBe(0);
    for (const name of [
      "nodejs_eventloop_lag_seconds",
      "process_cpu_user_seconds_total",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(now.has(name), name).toBe(true);
    }
    // No Redis configured: no redis_up to mislead.
    expect([...now.keys()].some((k) => k.startsWith("redis_up"))).toBe(false);
  });

  it("a finished page leaves no timer behind (each would keep its render, data and request alive for seconds)", async () => {
    const cookie = await emulatorCookie(server.origin, "ada@example.com", "org_seed_engines");
    const timers = async () => (await scrape()).get(key("nodejs_active_resources", { type: "Timeout" })) ?? 0;
    const before = await timers();
    const pages = [
      "/orgs",
      "/orgs/analytical-engines",
      "/orgs/analytical-engines/members",
      "/orgs/analytical-engines.data",
    ];
    for (let round = 0; round < 10; round++) {
      for (const path of pages) {
        const res = await get(path, cookie);
        expect(res.status, path).toBe(200);
        await res.arrayBuffer();
      }
    }
    // 40 answers; each used to leave two 5–6 s time-outs (React's and Remix's): 80.
    expect(await timers()).toBeLessThan(before + 10);
  });
});

/** The TCP ports a process listens on, from /proc (its socket inodes among the listening sockets). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return /^socket:\[(\d+)\]$/.exec(target)?.[1] ?? [];
      } catch {
        return [];
      }
    }),
  );
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
    readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[3] === "0A" && inodes.has(cols[9] ?? ""))
      .map((cols) => parseInt(cols[1]!.split(":")[1]!, 16)),
  );
}

describe("never public by accident", () => {
  it("the public origin's /metrics is a 404, and the metrics port serves /metrics alone, on loopback", async () => {
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: "POST" })).status).toBe(404);
    expect(listeningPorts(server.child.pid!).sort()).toEqual([server.port, metricsPort].sort());
  });

  it("without METRICS_PORT nothing else listens", async () => {
    const plain = await startServer({ LOG_LEVEL: "silent" });
    try {
      expect(listeningPorts(plain.child.pid!)).toEqual([plain.port]);
      expect((await fetch(`${plain.origin}/metrics`)).status).toBe(404);
    } finally {
      expect(await plain.stop()).toBe(0);
    }
  });
});
