import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { armFault } from "../support/emulator-api";
import { NETWORK_GUARD_PATH } from "../support/guard";
import { spawnGroup, stopGroup } from "../support/process-group";
import { freePort, ROOT } from "../support/server";
import { emulatorCookie } from "../support/session";

// Past its capacity an instance answers at once, 503 with Retry-After, never silence
// (issue 70); health and files still answer. The built server over real HTTP, overloaded
// for real: pages waiting on a slow Clerk, then a process starved of CPU.

type Group = ReturnType<typeof spawnGroup>;
const started: Group[] = [];

// Every process group the test started is stopped, whatever failed (a stopped one is continued first).
afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.pid) {
      try {
        process.kill(-child.pid, "SIGCONT");
      } catch {
        // already gone
      }
    }
    await stopGroup(child, "SIGKILL");
  }
});

/** The built server in local mode (the emulator as Clerk, its control API on), in a process group of its own. */
async function startShedding(env: Record<string, string>) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawnGroup(process.execPath, ["build/server.js"], ROOT, {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PORT: String(port),
    CLERK_EMULATOR_DATA_DIR: mkdtempSync(join(tmpdir(), "teamwork-shed-")),
    CLERK_EMULATOR_CONTROL: "1",
    CLERK_TELEMETRY_DISABLED: "1",
    NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
    RATE_LIMIT_SCALE: "1000",
    ...env,
  });
  started.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${child.output()}`);
    if (
      await fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`server did not become healthy:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, child };
}

/** One request, read to its end: status, Retry-After, title and how long it took. */
async function timed(url: string, init: RequestInit = {}) {
  const started = performance.now();
  const res = await fetch(url, { redirect: "manual", ...init });
  const body = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    title: /<title>([^<]*)<\/title>/.exec(body)?.[1] ?? "",
    ms: performance.now() - started,
  };
}

describe("load shedding", () => {
  it("sheds at once past its requests in flight (pages waiting on a slow Clerk), keeps health and files, recovers", async () => {
    const { origin } = await startShedding({ SHED_MAX_IN_FLIGHT: "4", SHED_EVENT_LOOP_DELAY_MS: "0" });
    const cookie = await emulatorCookie(origin, "ada@example.com", "org_seed_engines");
    // Clerk takes 2.5 s for every read of an organization (under the 3 s attempt time-out): each cold
    // organization home waits on it.
    for (const endpoint of ["bapi GET /v1/organizations/:id", "bapi GET /v1/organizations/:id/memberships"]) {
      await armFault(origin, { endpoint, mode: "slow", delayMs: 2_500, times: 50 });
    }
    const slow = ["analytical-engines", "analytical-engines", "analytical-engines", "analytical-engines"].map((slug) =>
      timed(`${origin}/orgs/${slug}`, { headers: { Cookie: cookie } }),
    );

    // Four pages in flight: the next request is answered at once, honestly.
    let shed: Awaited<ReturnType<typeof timed>> | null = null;
    for (const deadline = Date.now() + 2_000; Date.now() < deadline;) {
      const answer = await timed(`${origin}/`);
      if (answer.status === 503) {
        shed = answer;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(shed, "a request past 4 in flight was shed").not.toBeNull();
    expect(shed!.retryAfter).toMatch(/^\d+$/);
    expect(shed!.title).toBe("Too busy — Teamwork");
    expect(shed!.ms).toBeLessThan(1_000);
    // A form's body is refused unread, the connection closed after the page.
    const form = await timed(`${origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: "theme=dark",
    });
    expect([form.status, form.retryAfter]).toEqual([503, "2"]);
    // Nor are Clerk's webhooks (here one without Svix's headers: the body check's own 400, not a 503).
    const webhook = await timed(`${origin}/webhooks/clerk`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(webhook.status).toBe(400);
    // Liveness, readiness and files are never shed: the balancer still sees the instance.
    expect((await timed(`${origin}/healthz`)).status).toBe(200);
    expect((await timed(`${origin}/readyz`)).status).toBe(200);
    expect((await timed(`${origin}/favicon.svg`)).status).toBe(200);

    // The slow pages end as pages (none was dropped), and the instance serves again.
    for (const page of await Promise.all(slow)) expect(page.status).toBe(200);
    expect((await timed(`${origin}/`)).status).toBe(200);
  });

  it("sheds while its event loop is late turn after turn (a process starved of CPU), and recovers when it is not", async () => {
    const { origin, child } = await startShedding({ SHED_MAX_IN_FLIGHT: "0", SHED_EVENT_LOOP_DELAY_MS: "150" });
    expect((await timed(`${origin}/`)).status).toBe(200);

    // As a container past its CPU quota: stopped 250 ms, then run 25 ms, again and again (SIGSTOP
    // and SIGCONT to its process group), for 2 s before and while the requests arrive.
    let starving = true;
    const starve = (async () => {
      while (starving) {
        process.kill(-child.pid!, "SIGSTOP");
        await new Promise((r) => setTimeout(r, 250));
        process.kill(-child.pid!, "SIGCONT");
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      const [page, health, file] = await Promise.all([
        timed(`${origin}/`),
        timed(`${origin}/healthz`),
        timed(`${origin}/favicon.svg`),
      ]);
      expect([page.status, page.retryAfter, page.title]).toEqual([503, "2", "Too busy — Teamwork"]);
      expect(health.status).toBe(200);
      expect(file.status).toBe(200);
    } finally {
      starving = false;
      await starve;
    }

    // Three turns on time and it serves again.
    await new Promise((r) => setTimeout(r, 500));
    expect((await timed(`${origin}/`)).status).toBe(200);
  });
});
