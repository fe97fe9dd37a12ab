import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { armFault, emulatorCalls } from "../support/emulator-api";
import { startServer, type RunningServer } from "../support/server";
import { emulatorCookie } from "../support/session";
import { forgetOrganizationCaches, newWebhookSecret } from "../support/webhooks";

// The error catalogue's upstream rows, against the built server and the
// emulator's fault injection: what the person sees and how often Clerk is called.
let server: RunningServer;

const MEMBERS = "bapi GET /v1/organizations/:id/memberships";
const MY_MEMBERSHIPS = "bapi GET /v1/users/:id/organization_memberships";
const INVITE = "bapi POST /v1/organizations/:id/invitations";

// Each test's reads reach Clerk: before it, a webhook has the server forget the organization's cached answers.
const WEBHOOK_SECRET = newWebhookSecret();

beforeAll(async () => {
  server = await startServer({ CLERK_WEBHOOK_SIGNING_SECRET: WEBHOOK_SECRET, CLERK_EMULATOR_WEBHOOKS: "off" });
});

afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

beforeEach(async () => {
  await fetch(`${server.origin}/__clerk/_emulator/faults`, { method: "DELETE" });
  await forgetOrganizationCaches(server.origin, WEBHOOK_SECRET, "org_seed_engines");
});

async function signedIn(person: string) {
  return emulatorCookie(server.origin, `${person}@example.com`);
}

const arm = (fault: Parameters<typeof armFault>[1]) => armFault(server.origin, fault);

async function callsOf(endpoint: string): Promise<number> {
  return (await emulatorCalls(server.origin))[endpoint] ?? 0;
}

/** Runs `act` and returns how many calls `endpoint` received meanwhile. */
async function counting<T>(endpoint: string, act: () => Promise<T>): Promise<[T, number]> {
  const before = await callsOf(endpoint);
  const result = await act();
  return [result, (await callsOf(endpoint)) - before];
}

const get = (path: string, cookie: string) =>
  fetch(server.origin + path, { headers: { Cookie: cookie, Accept: "text/html" } });

describe("reads are retried up to 3 times", () => {
  it("the members page succeeds when the Backend API fails three times, then recovers (4 calls)", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: MEMBERS, mode: "error", status: 502, times: 3 });
    const [res, calls] = await counting(MEMBERS, () => get("/orgs/analytical-engines/members", cookie));
    expect(res.status).toBe(200);
    expect((await res.text()).match(/data-testid="member-row"/g)).toHaveLength(10);
    expect(calls).toBe(4);
  });

  it("when it keeps failing: a 503 page with Retry-After and a Retry link, after exactly 4 calls", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: MEMBERS, mode: "error", status: 503, times: 50 });
    const [res, calls] = await counting(MEMBERS, () => get("/orgs/analytical-engines/members?q=ada", cookie));
    expect(calls).toBe(4);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const html = await res.text();
    expect(html).toContain("Temporarily unavailable");
    expect(html).toMatch(/<a[^>]*data-testid="retry"[^>]*href="\/orgs\/analytical-engines\/members\?q=ada"/);
    // A route-level error: the organization's header and the navigation stay.
    expect(html).toContain('data-testid="org-name"');
    expect(html).toContain('class="nav-bar"');
  });

  it("a connection reset is retried like a 5xx", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: MEMBERS, mode: "reset", times: 2 });
    const [res, calls] = await counting(MEMBERS, () => get("/orgs/analytical-engines/members", cookie));
    expect(res.status).toBe(200);
    expect(calls).toBe(3);
  });

  it("a 4xx is not retried: it is unexpected here, so a 500 with a reference that is in the log", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: MEMBERS, mode: "error", status: 400, times: 1 });
    const [res, calls] = await counting(MEMBERS, () => get("/orgs/analytical-engines/members", cookie));
    expect(calls).toBe(1);
    expect(res.status).toBe(500);
    const requestId = res.headers.get("x-request-id")!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const html = await res.text();
    expect(html).toContain("Something went wrong on our side");
    expect(html).toMatch(new RegExp(`data-testid="error-reference"[^>]*>${requestId}<`));
    expect(html).not.toMatch(/ClerkAPIResponseError|at async|\.js:\d+/);
    const logged = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"event":"unexpected_error"'))
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(logged).toContainEqual(
      expect.objectContaining({ request_id: requestId, path: "/orgs/analytical-engines/members" }),
    );
  });

  it("a hanging attempt is abandoned at its time-out and the retry answers", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: MEMBERS, mode: "hang", times: 1 });
    const started = Date.now();
    const [res, calls] = await counting(MEMBERS, () => get("/orgs/analytical-engines/members", cookie));
    expect(res.status).toBe(200);
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it("one document load reads the user's memberships once, though three loaders need them", async () => {
    const cookie = await signedIn("katherine");
    const [res, calls] = await counting(MY_MEMBERSHIPS, () => get("/orgs/analytical-engines/members", cookie));
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
  });

  it("upstream log lines name the upstream, attempt, status and duration, and nothing personal", async () => {
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"event":"upstream"'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(entry).sort()).toEqual(
        expect.arrayContaining(["attempt", "duration_ms", "event", "outcome", "status", "time", "upstream"]),
      );
      expect(line).not.toMatch(/@example\.com|user_seed|sk_|Bearer|eyJ/);
    }
  });
});

describe("writes are tried once, and a failure keeps what was typed", () => {
  it("a failed invitation shows the 503 message with the email still in the field", async () => {
    const cookie = await signedIn("ada");
    await arm({ endpoint: INVITE, mode: "error", status: 503, times: 5 });
    const [res, calls] = await counting(INVITE, () =>
      fetch(`${server.origin}/orgs/analytical-engines/members`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ emailAddress: "kept@example.com", role: "org:admin" }).toString(),
      }),
    );
    expect(calls).toBe(1);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const html = await res.text();
    expect(html).toMatch(/data-testid="form-error"[\s\S]*The invitation was not sent/);
    expect(html).toMatch(
      /name="emailAddress"[^>]*value="kept@example.com"|value="kept@example.com"[^>]*name="emailAddress"/,
    );
    expect(html).toMatch(/<option value="org:admin" selected="">/);
  });
});
