/**
 * `npm run bench`: one run, one table. Servers on loopback, Clerk played by the
 * bundled emulator in a process of its own (so the app pays for Clerk as a
 * remote service: JWT verification and HTTP calls), autocannon for load,
 * Debian's Chromium for page metrics, /proc for memory.
 */
import { spawn, execSync, type ChildProcess } from "node:child_process";
import { createPublicKey } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "@playwright/test";
import autocannon from "autocannon";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tests/support/chromium";

const ROOT = resolve(import.meta.dirname ?? ".", "..");
const DURATION_S = 5;
const ROUNDS = 3;
const CONNECTIONS = 10;
const children: ChildProcess[] = [];

function start(name: string, args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      CLERK_TELEMETRY_DISABLED: "1",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  child.stderr?.on("data", (d: Buffer) => (errors += d.toString()));
  child.once("exit", (code) => {
    if (code && code !== 0 && !stopping) console.error(`${name} exited with ${code}:\n${errors}`);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stopAll() {
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
}

async function waitFor(url: string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not come up`);
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

type Load = { rps: number; p50: number; p99: number; errors: number };
type Target = { url: string; headers?: Record<string, string> };

/** What every browser sends: the load targets ask for compressed bodies too. */
const BROWSER_HEADERS = { "Accept-Encoding": "gzip, br" };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The targets take turns, round after round, and each figure is the median
 * of its rounds: on a shared machine a slow moment then hurts every target
 * alike instead of whichever happened to be running.
 */
async function loadInTurns(targets: Target[]): Promise<Load[]> {
  targets = targets.map((t) => ({ ...t, headers: { ...BROWSER_HEADERS, ...t.headers } }));
  for (const t of targets) await autocannon({ url: t.url, headers: t.headers, connections: CONNECTIONS, duration: 2 }); // warm-up
  const runs: Load[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await autocannon({ url: t.url, headers: t.headers, connections: CONNECTIONS, duration: DURATION_S });
      runs[i]!.push({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.non2xx + r.timeouts,
      });
    }
  }
  return runs.map((r) => ({
    rps: median(r.map((x) => x.rps)),
    p50: median(r.map((x) => x.p50)),
    p99: median(r.map((x) => x.p99)),
    errors: r.reduce((sum, x) => sum + x.errors, 0),
  }));
}

type PageMetrics = { jsKb: number; lcp: number; cls: number; tbt: number };

const OBSERVE = () => {
  const m = { lcp: 0, cls: 0, tasks: [] as [number, number][] };
  (window as unknown as { __bench: typeof m }).__bench = m;
  new PerformanceObserver((l) => l.getEntries().forEach((e) => (m.lcp = e.startTime))).observe({
    type: "largest-contentful-paint",
    buffered: true,
  });
  new PerformanceObserver((l) =>
    l.getEntries().forEach((e) => {
      const shift = e as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (!shift.hadRecentInput) m.cls += shift.value;
    }),
  ).observe({ type: "layout-shift", buffered: true });
  new PerformanceObserver((l) => l.getEntries().forEach((e) => m.tasks.push([e.startTime, e.duration]))).observe({
    type: "longtask",
    buffered: true,
  });
};

async function pageMetrics(
  browser: Browser,
  origin: string,
  path: string,
  theme: "light" | "dark",
  cookies: string | null,
): Promise<PageMetrics> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.request.post(`${origin}/resources/theme`, {
    form: { theme },
    headers: { Origin: origin },
    maxRedirects: 0,
  });
  if (cookies) {
    await context.addCookies(
      cookies.split("; ").map((pair) => {
        const [name, ...value] = pair.split("=");
        return { name: name!, value: value.join("="), url: origin };
      }),
    );
  }
  await context.addInitScript(OBSERVE);
  const page = await context.newPage();
  const scripts: Promise<number>[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    // First-load JavaScript, without clerk-js (it loads asynchronously, from its own path).
    if (url.pathname.endsWith(".js") && !url.pathname.startsWith("/_clerk-js/")) {
      scripts.push(
        response.body().then(
          (b) => gzipSync(b).length,
          () => 0,
        ),
      );
    }
  });
  // Signed in, clerk-js keeps the network busy (token refresh), so: the load event, then a settle.
  await page.goto(origin + path, { waitUntil: "load" });
  await page.waitForTimeout(3_000);
  const result = await page.evaluate(() => {
    const m = (window as unknown as { __bench: { lcp: number; cls: number; tasks: [number, number][] } }).__bench;
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0;
    const tbt = m.tasks.filter(([start]) => start >= fcp).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
    return { lcp: m.lcp, cls: m.cls, tbt };
  });
  const jsBytes = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
  await context.close();
  return { jsKb: jsBytes / 1024, ...result };
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

async function main() {
  console.log("Building the app and the baseline…");
  execSync("npm run build", { cwd: ROOT, stdio: "ignore" });
  execSync(`${join(ROOT, "node_modules/.bin/remix")} build`, { cwd: join(ROOT, "bench/baseline"), stdio: "ignore" });

  const ports = { clerk: 4701, app: 4702, serve: 4703, baseline: 4704 };
  const clerkData = mkdtempSync(join(tmpdir(), "teamwork-bench-clerk-"));
  // Clerk's stand-in: the app in local mode, used only for its /__clerk APIs (and for the browser metrics).
  start("clerk", ["build/server.js"], {
    PORT: String(ports.clerk),
    CLERK_EMULATOR_DATA_DIR: clerkData,
    CLERK_EMULATOR_TOKEN_TTL: "3600",
    LOG_LEVEL: "silent",
    RATE_LIMIT_SCALE: "1000",
    CLERK_EMULATOR_CONTROL: "1",
  });
  await waitFor(`http://127.0.0.1:${ports.clerk}/healthz`);

  const keysEnv = {
    HOST: "127.0.0.1",
    CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`,
    CLERK_SECRET_KEY: `sk_live_emulator_${readFileSync(join(clerkData, "clerk-emulator-secret"), "utf8")}`,
    CLERK_API_URL: `http://127.0.0.1:${ports.clerk}/__clerk/api`,
    CLERK_JWT_KEY: createPublicKey(readFileSync(join(clerkData, "clerk-emulator-key.pem"), "utf8"))
      .export({ type: "spki", format: "pem" })
      .toString(),
    SESSION_SECRET: "bench-session-secret-0123456789abcdef",
    CLERK_JS: "/_clerk-js/clerk.browser.js",
    TRUST_PROXY: "loopback",
  };
  const app = start("app", ["build/server.js"], {
    ...keysEnv,
    PORT: String(ports.app),
    PUBLIC_ORIGIN: `http://127.0.0.1:${ports.app}`,
  });
  start("remix-serve", [join(ROOT, "node_modules/@remix-run/serve/dist/cli.js"), "build/index.js"], {
    ...keysEnv,
    PORT: String(ports.serve),
    PUBLIC_ORIGIN: `http://127.0.0.1:${ports.serve}`,
  });
  start("baseline", ["server.mjs"], { PORT: String(ports.baseline) }, join(ROOT, "bench/baseline"));
  await Promise.all([
    waitFor(`http://127.0.0.1:${ports.app}/healthz`),
    waitFor(`http://127.0.0.1:${ports.serve}/`),
    waitFor(`http://127.0.0.1:${ports.baseline}/`),
  ]);

  const session = (await (
    await fetch(`http://127.0.0.1:${ports.clerk}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", organizationId: "org_seed_engines" }),
    })
  ).json()) as { sessionToken: string; clientUat: number; clientId: string };
  const cookie = `__session=${session.sessionToken}; __client_uat=${session.clientUat}`;
  const orgHome = "/orgs/analytical-engines";

  console.log(
    `Load: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per target, taking turns (medians)…`,
  );
  const [landing, home, baseline, remixServe] = (await loadInTurns([
    { url: `http://127.0.0.1:${ports.app}/` },
    { url: `http://127.0.0.1:${ports.app}${orgHome}`, headers: { Cookie: cookie } },
    { url: `http://127.0.0.1:${ports.baseline}/` },
    { url: `http://127.0.0.1:${ports.serve}/` },
  ])) as [Load, Load, Load, Load];

  console.log("Memory: 2 × 10,000 requests (landing and organization home, alternating)…");
  const memoryRun = () =>
    autocannon({
      url: `http://127.0.0.1:${ports.app}`,
      connections: CONNECTIONS,
      amount: 10_000,
      requests: [
        { method: "GET", path: "/" },
        { method: "GET", path: orgHome, headers: { Cookie: cookie } },
      ],
    });
  await memoryRun();
  const rss1 = rssMb(app.pid!);
  await memoryRun();
  const rss2 = rssMb(app.pid!);

  console.log("Browser: Chromium, 1280×800, no throttling…");
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const localSession = (await (
    await fetch(`http://127.0.0.1:${ports.clerk}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", organizationId: "org_seed_engines" }),
    })
  ).json()) as typeof session;
  const browserCookie = `__session=${localSession.sessionToken}; __client_uat=${localSession.clientUat}`;
  const clerkOrigin = `http://localhost:${ports.clerk}`;
  const pages: [string, PageMetrics][] = [];
  for (const theme of ["light", "dark"] as const) {
    pages.push([`landing, ${theme}`, await pageMetrics(browser, clerkOrigin, "/", theme, null)]);
    pages.push([`organization home, ${theme}`, await pageMetrics(browser, clerkOrigin, orgHome, theme, browserCookie)]);
  }
  await browser.close();
  stopAll();

  const rows = [
    ["(a) landing, signed out", landing],
    ["(b) organization home, signed in", home],
    ["(c) bare Remix 2 page (hello world)", baseline],
    ["(d) landing on remix-serve, same build", remixServe],
  ] as const;
  console.log("\n| server (loopback) | req/s | p50 ms | p99 ms | errors |\n| --- | ---: | ---: | ---: | ---: |");
  for (const [name, r] of rows)
    console.log(`| ${name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} |`);
  console.log("\n| ratio | value |\n| --- | ---: |");
  console.log(`| (a)/(c) landing vs hello world | ${fmt(landing.rps / baseline.rps, 2)} |`);
  console.log(`| (b)/(c) organization home vs hello world (target ≥ 0.50) | ${fmt(home.rps / baseline.rps, 2)} |`);
  console.log(
    `| (a)/(d) our server vs remix-serve, same page (target ≥ 1.00) | ${fmt(landing.rps / remixServe.rps, 2)} |`,
  );
  console.log(
    "\n| page (Chromium) | first-load JS, KB gzip (no clerk-js; target ≤ 150) | LCP ms | CLS (target 0.00) | TBT ms |\n| --- | ---: | ---: | ---: | ---: |",
  );
  for (const [name, m] of pages)
    console.log(`| ${name} | ${fmt(m.jsKb, 1)} | ${fmt(m.lcp)} | ${fmt(m.cls, 2)} | ${fmt(m.tbt)} |`);
  console.log("\n| memory (app server) | MB |\n| --- | ---: |");
  console.log(`| RSS after 10,000 requests | ${fmt(rss1, 1)} |`);
  console.log(`| RSS after 20,000 requests | ${fmt(rss2, 1)} |`);
  console.log(`| growth over the second 10,000 | ${fmt(rss2 - rss1, 1)} (${fmt(((rss2 - rss1) / rss1) * 100, 1)}%) |`);
}

main().catch((error) => {
  console.error(error);
  stopAll();
  process.exit(1);
});
