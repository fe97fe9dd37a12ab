// `npm run scan`: a web vulnerability scanner, wapiti 3.0.4, against the built
// server, signed out and signed in as ada@example.com, in both of the app's
// modes: local mode (the bundled Clerk emulator) and keys mode (Clerk's
// Backend API stood in for by a second, local-mode server; PostHog by a sink
// in this process, so /ingest is live). Every scan is bounded in time; nothing
// of it leaves loopback (the servers run with clerk-emulator/testing/network-guard.cjs,
// wapiti with scripts/security-scan-wapiti.py, and both fail the run on any
// attempt). Not part of `npm test` (about 4 minutes; docs/security.md, "The vulnerability scan").
//
// Writes wapiti's JSON reports, its output and the servers' logs to
// test-results/security-scan/, prints each scan's findings by category and
// level, and exits 1 when a finding at or above --fail-on is not in
// scripts/security-scan-triaged.json (or a scan failed, or something tried to
// leave loopback). A finding listed there is printed with its verdict.
//   --only local|keys      one mode
//   --fail-on low|medium|high   the lowest level that fails the run when untriaged (low)
//   --serial               the two modes one after the other (default: side by side)
//
// Wapiti comes from .cache/wapiti-venv when that holds 3.0.4, else Debian's
// package (`apt-get install -y wapiti`, bookworm's is 3.0.4), else it is
// pip-installed into .cache/wapiti-venv (needs PyPI, which these machines lack).
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const ROOT = resolve(import.meta.dirname, "..");
const OUT = join(ROOT, "test-results", "security-scan");
const TRIAGE_FILE = join(ROOT, "scripts", "security-scan-triaged.json");
const NODE_GUARD = createRequire(import.meta.url).resolve("clerk-emulator/testing/network-guard.cjs");
const WAPITI_LAUNCHER = join(ROOT, "scripts", "security-scan-wapiti.py");
const VENV = join(ROOT, ".cache", "wapiti-venv");
const WAPITI_VERSION = "3.0.4";
const DEMO = { email: "ada@example.com", password: "teamwork-demo" };

// Wapiti's default modules (cookieflags, csp, exec, file, http_headers,
// permanentxss, redirect, sql, ssrf, xss) and the other ones that apply to
// this app. Left out:
// - blindsql (a default): time-based SQL injection, sleep payloads timed one
//   by one; the app has no SQL database (Clerk's API, Redis), the error-based
//   sql module still runs, and it alone took 30 s of each scan, never done;
// - buster: a directory brute force whose time limit 3.0.4 checks only
//   between directories (8 minutes alone);
// - nikto and wapp: their databases are not in Debian's package, and would be
//   downloaded from GitHub;
// - brute_login_form: sign-in is Clerk's, rendered in the browser, so there
//   is no login form for it to find.
const MODULES = [
  "cookieflags",
  "csp",
  "exec",
  "file",
  "http_headers",
  "permanentxss",
  "redirect",
  "sql",
  "ssrf",
  "xss",
  "backup",
  "crlf",
  "csrf",
  "htaccess",
  "methods",
  "shellshock",
  "xxe",
];
// Time: the crawl, each module's attacks (wapiti checks both only between
// resources), and a whole wapiti run, stopped if it goes past.
const MAX_CRAWL_S = 45;
const MAX_ATTACK_S = 60;
const HARD_LIMIT_S = 300;
const LEVELS = { 1: "low", 2: "medium", 3: "high" };

const argument = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = argument("--only");
if (only && !["local", "keys"].includes(only)) throw new Error("--only takes local or keys");
const failOn = { low: 1, medium: 2, high: 3 }[argument("--fail-on") ?? "low"];
if (!failOn) throw new Error("--fail-on takes low, medium or high");
const serial = process.argv.includes("--serial");

// ---------------------------------------------------------------------------
// Everything started is stopped, process group and all, however the run ends.

const groups = new Set();
const cleanups = [];
function killGroups(signal = "SIGKILL") {
  for (const pid of groups) {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }
}
process.once("exit", () => {
  killGroups();
  for (const cleanup of cleanups.splice(0)) {
    try {
      cleanup();
    } catch {
      // best effort
    }
  }
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the scan's servers and scanners.`);
    process.exit(130);
  });
}

/**
 * `command` in its own process group, its output to `logFile` (each line after the seconds since
 * it started, with `timestamps`). `exited` resolves with the exit code (or the signal).
 */
function spawnGroup(command, args, { env, cwd = ROOT, logFile, timestamps = false }) {
  let child;
  let logged = Promise.resolve();
  if (timestamps) {
    const log = createWriteStream(logFile);
    const started = Date.now();
    child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const stamp = (line) => log.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream, crlfDelay: Infinity }).on("line", stamp);
    logged = new Promise((done) => child.once("close", () => log.end(done)));
  } else {
    const fd = openSync(logFile, "w");
    child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", fd, fd] });
    closeSync(fd);
  }
  groups.add(child.pid);
  const exited = new Promise((done) =>
    child.once("exit", (code, signal) => {
      // Whatever it started and left behind goes with it.
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is empty
      }
      groups.delete(child.pid);
      logged.then(() => done(code ?? signal));
    }),
  );
  return { child, exited };
}

async function stopGroup({ child, exited }) {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return exited;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }, 5_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

const tempDir = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const freePort = () =>
  new Promise((done, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
  });

// ---------------------------------------------------------------------------
// Wapiti: pinned, from the venv or Debian's package.

/** The Python a console script runs with (its `#!` line). */
const interpreterOf = (script) => /^#!\s*(\S+)/.exec(readFileSync(script, "utf8"))?.[1] ?? "python3";

function versionOf(python, script) {
  const result = spawnSync(python, [script, "--version"], { encoding: "utf8", timeout: 30_000 });
  return /Wapiti (\d+\.\d+\.\d+)/.exec(`${result.stdout}${result.stderr}`)?.[1] ?? null;
}

function findWapiti() {
  const candidates = [
    { source: ".cache/wapiti-venv", python: join(VENV, "bin", "python"), script: join(VENV, "bin", "wapiti") },
    { source: "Debian's wapiti package", script: "/usr/bin/wapiti" },
  ];
  for (const candidate of candidates) {
    if (!existsSync(candidate.script)) continue;
    const python = candidate.python ?? interpreterOf(candidate.script);
    const version = versionOf(python, candidate.script);
    if (version === WAPITI_VERSION) return { ...candidate, python, version };
    console.log(
      `(${candidate.source} holds wapiti ${version ?? "that does not start"}, not ${WAPITI_VERSION}: passed over)`,
    );
  }
  return null;
}

function ensureWapiti() {
  const found = findWapiti();
  if (found) return found;
  console.log(`Installing wapiti3==${WAPITI_VERSION} into .cache/wapiti-venv…`);
  rmSync(VENV, { recursive: true, force: true });
  const steps = [
    ["python3", ["-m", "venv", VENV]],
    [
      join(VENV, "bin", "pip"),
      ["install", "--quiet", "--retries", "1", "--timeout", "30", `wapiti3==${WAPITI_VERSION}`],
    ],
  ];
  for (const [command, args] of steps) {
    if (spawnSync(command, args, { stdio: "inherit", timeout: 600_000 }).status !== 0) {
      rmSync(VENV, { recursive: true, force: true });
      throw new Error(
        `Could not install wapiti3==${WAPITI_VERSION} from PyPI. Install Debian's package instead ` +
          "(bookworm's is the same version): apt-get install -y wapiti",
      );
    }
  }
  const installed = findWapiti();
  if (!installed) throw new Error(`.cache/wapiti-venv does not run wapiti ${WAPITI_VERSION}`);
  return installed;
}

// ---------------------------------------------------------------------------
// Stand-ins on loopback: PostHog's capture API, and the SSRF/XXE endpoint.

function listen(server) {
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${server.address().port}`)));
}

/** Answers whatever /ingest forwards as PostHog would, and counts it. */
async function startPostHogSink() {
  const received = [];
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":1}');
    });
  });
  const origin = await listen(server);
  cleanups.push(() => server.close());
  return { origin, received, close: () => new Promise((done) => server.close(done)) };
}

/**
 * What wapiti's ssrf and xxe modules expect of their endpoint (wapiti3.ovh
 * by default), here: the payloads name it, a request to it from the app is
 * recorded, and wapiti reads the records at the end of the module
 * (get_ssrf.php / get_xxe.php). The app should never call it.
 */
async function startOutOfBandEndpoint() {
  const hits = [];
  // Every request but wapiti's own (its check that the endpoint answers, its lookups of results).
  const requests = [];
  const server = createHttpServer((req, res) => {
    req.resume();
    const url = new URL(req.url, "http://endpoint.invalid");
    if (!(url.pathname === "/" || /^\/get_(ssrf|xxe)\.php$/.test(url.pathname)))
      requests.push(`${req.method} ${req.url}`);
    const results = (kind, sessionId) => {
      const data = {};
      for (const hit of hits.filter((h) => h.kind === kind && h.sessionId === sessionId)) {
        ((data[hit.pathId] ??= {})[hit.hexParam] ??= []).push(hit.infos);
      }
      return data;
    };
    if (url.pathname === "/get_ssrf.php" || url.pathname === "/get_xxe.php") {
      const kind = url.pathname === "/get_ssrf.php" ? "ssrf" : "dtd";
      const data = results(kind, url.searchParams.get("id"));
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(data));
      return;
    }
    const match = /^\/(ssrf|dtd)\/([^/]+)\/(\d+)\/([0-9a-f]+)\/(?:([a-z0-9]+)\.dtd)?/.exec(url.pathname);
    if (match) {
      const [, kind, sessionId, pathId, hexParam, payload] = match;
      const infos = {
        url: req.url,
        date: new Date().toISOString(),
        ip: req.socket.remoteAddress,
        method: req.method,
        size: 0,
        payload: payload ?? "",
      };
      hits.push({ kind, sessionId, pathId, hexParam, infos });
    }
    res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
  });
  const origin = await listen(server);
  cleanups.push(() => server.close());
  return { origin, requests, close: () => new Promise((done) => server.close(done)) };
}

// ---------------------------------------------------------------------------
// The app.

/** `node build/server.js` on a free loopback port, in its own process group, network-guarded. */
async function startApp(name, env) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const logFile = join(OUT, `${name}-server.log`);
  const guardLog = join(OUT, `${name}-network-guard.log`);
  rmSync(guardLog, { force: true });
  const dataDir = tempDir("teamwork-scan-");
  const keys = Boolean(env.CLERK_SECRET_KEY);
  const proc = spawnGroup(process.execPath, ["build/server.js"], {
    logFile,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      CLERK_EMULATOR_DATA_DIR: dataDir,
      CLERK_TELEMETRY_DISABLED: "1",
      NODE_OPTIONS: `--require ${NODE_GUARD}`,
      NETWORK_GUARD_LOG: guardLog,
      // The scanner posts the same forms hundreds of times from one address: its payloads must
      // reach the app's code, not its rate limits (which have their own tests).
      RATE_LIMIT_SCALE: "1000",
      // A session token that outlives the scan (the scanner cannot refresh one as clerk-js does).
      CLERK_EMULATOR_TOKEN_TTL: "3600",
      ...(keys ? { PUBLIC_ORIGIN: origin } : {}),
      ...env,
    },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${name}: the server exited early; see ${logFile}`);
    try {
      if ((await fetch(`${origin}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name}: the server did not become healthy; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, origin, port, dataDir, logFile, guardLog, stop: () => stopGroup(proc) };
}

/**
 * Signs the demo user in through Clerk's Frontend API (the emulator's, at
 * `fapiOrigin`), as clerk-js on `appOrigin` would, and returns what the
 * browser then sends the app: `__session` (the token made for `appOrigin`),
 * `__client_uat`, and in local mode `__client` (the Frontend API is the
 * app's own /__clerk there).
 */
async function signIn(fapiOrigin, appOrigin) {
  const res = await fetch(`${fapiOrigin}/__clerk/v1/client/sign_ins`, {
    method: "POST",
    headers: { Origin: appOrigin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ identifier: DEMO.email, password: DEMO.password }).toString(),
  });
  if (!res.ok) throw new Error(`signing in as ${DEMO.email} failed: ${res.status}`);
  const body = await res.json();
  const session = body.client.sessions.find((s) => s.id === body.response.created_session_id);
  const cookies = Object.fromEntries(res.headers.getSetCookie().map((c) => /^([^=]+)=([^;]*)/.exec(c).slice(1)));
  const jar = [
    { name: "__session", value: session.last_active_token.jwt, path: "/" },
    { name: "__client_uat", value: cookies.__client_uat, path: "/" },
  ];
  if (fapiOrigin === appOrigin) jar.push({ name: "__client", value: cookies.__client, path: "/__clerk" });
  return jar;
}

/** Wapiti's cookie file (`-c`): {domain: {path: {name: attributes}}}. */
function writeCookieFile(file, jar) {
  const byPath = {};
  for (const { name, value, path } of jar) {
    (byPath[path] ??= {})[name] = { value, expires: null, secure: false, port: null, version: 0 };
  }
  writeFileSync(file, JSON.stringify({ "127.0.0.1": byPath }, null, 2));
}

const cookieHeader = (jar) => jar.map(({ name, value }) => `${name}=${value}`).join("; ");

/** Whether the jar is still signed in on the app: its organizations' page answers, no redirect to sign in. */
async function stillSignedIn(app, jar) {
  const res = await fetch(`${app.origin}/orgs`, {
    headers: { Cookie: cookieHeader(jar), Accept: "text/html" },
    redirect: "manual",
  });
  return res.status === 200;
}

// ---------------------------------------------------------------------------
// One wapiti run.

async function runWapiti(wapiti, { name, app, endpoint, jar }) {
  const work = tempDir("teamwork-wapiti-");
  const config = join(work, "config");
  mkdirSync(config);
  // Wapiti builds every module, selected or not, and the wapp module downloads its database from
  // GitHub when it finds none: an empty one keeps it here.
  writeFileSync(join(config, "apps.json"), '{"apps":{},"categories":{}}');
  const report = join(OUT, `${name}.json`);
  const logFile = join(OUT, `${name}.log`);
  const guardLog = join(OUT, `${name}-network-guard.log`);
  rmSync(report, { force: true });
  rmSync(guardLog, { force: true });
  const base = `${app.origin}/`;
  const args = [
    ...["-u", base, "--scope", "folder", "-m", MODULES.join(",")],
    ...["--flush-session", "--store-session", join(work, "session"), "--store-config", config],
    ...["--max-scan-time", String(MAX_CRAWL_S), "--max-attack-time", String(MAX_ATTACK_S), "-t", "10"],
    // At most a handful of URLs or forms of one shape (path and parameter names): every page
    // carries the theme and analytics forms, with its own redirectTo, and the members list pages.
    ...["-S", "paranoid"],
    // What the app serves and no link leads to; the redirect module tries each parameter here.
    ...startUrls(app, Boolean(jar)).flatMap((path) => ["-s", `${app.origin}${path}`]),
    // The build's files (hashed, static, ~40 of them) and clerk-js's: nothing to attack, minutes to crawl.
    ...["-x", `${app.origin}/build/*`, "-x", `${app.origin}/__clerk/npm/*`],
    // Signing out would end the session the rest of the scan runs in.
    ...(jar ? ["-x", `${app.origin}/resources/sign-out*`, "-x", `${app.origin}/__clerk/v1/client/sessions/*`] : []),
    ...(jar ? ["-c", join(work, "cookies.json")] : []),
    // Debian's urllib3 cannot read brotli, which wapiti asks for and the app then sends.
    ...["-H", "Accept-Encoding: gzip, deflate"],
    ...["--external-endpoint", `${endpoint.origin}/`, "--internal-endpoint", `${endpoint.origin}/`],
    ...["--no-bugreport", "-v", "1", "-f", "json", "-o", report],
  ];
  if (jar) writeCookieFile(join(work, "cookies.json"), jar);
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    LANG: "C.UTF-8",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
  };
  const started = Date.now();
  let timedOut = false;
  const proc = spawnGroup(wapiti.python, [WAPITI_LAUNCHER, guardLog, wapiti.script, ...args], {
    env,
    logFile,
    cwd: work,
    timestamps: true,
  });
  const timer = setTimeout(() => {
    timedOut = true;
    void stopGroup(proc);
  }, HARD_LIMIT_S * 1000);
  const code = await proc.exited;
  clearTimeout(timer);
  const seconds = Math.round((Date.now() - started) / 1000);
  const output = readFileSync(logFile, "utf8");
  const crawled = Number(/Wapiti found (\d+) URLs and forms/.exec(output)?.[1] ?? NaN);
  const cut = [...output.matchAll(/Max attack time was reached for module (\w+)/g)].map((m) => m[1]);
  if (/Max scan time was reached/.test(output)) cut.unshift("(crawl)");
  const problems = [];
  if (timedOut) problems.push(`wapiti ran past ${HARD_LIMIT_S} s and was stopped`);
  else if (code !== 0) problems.push(`wapiti exited with ${code}; see ${logFile}`);
  if (!existsSync(report)) problems.push(`no report; see ${logFile}`);
  // A module that raises is reported by wapiti as the exception's name, then its frames, and skipped.
  const crashes = [...output.matchAll(/\] (\w+(?:Error|Exception)\b[^\n]*)\n[^\n]*File "/g)].map((m) => m[1]);
  if (crashes.length) problems.push(`a module crashed (${crashes[0]}); see ${logFile}`);
  const skipped = /(\d+) requests were skipped due to network issues/.exec(output);
  if (skipped)
    problems.push(`${skipped[1]} requests got no answer (the app stalled or closed connections); see ${logFile}`);
  if (jar && !(await stillSignedIn(app, jar))) problems.push("the session was signed out during the scan");
  return { name, report, seconds, crawled, cut, problems };
}

/**
 * Paths no page links to (or only JavaScript reaches), with the query parameters they read. Signed
 * in, what differs from signed out: what is the same for both (health checks, the analytics proxy,
 * Clerk's handshake return, an unknown page) is scanned once, signed out.
 */
function startUrls(app, signedIn) {
  const both = [
    "/resources/theme?redirectTo=%2F",
    "/orgs?left=org_x",
    "/resources/organizations?left=org_x",
    "/sign-in?redirect_url=%2Forgs",
  ];
  if (signedIn) return [...both, "/orgs/new", "/orgs/analytical-engines/members?q=a", "/user"];
  const paths = [
    ...both,
    "/healthz",
    "/readyz",
    "/ingest/decide/?v=3&ip=1",
    "/ingest/e/?ip=1&_=1",
    "/not-a-page?q=x",
    // Where Clerk's handshake brings a browser back (Clerk's SDK reads the nonce's cookies from Clerk).
    "/?__clerk_handshake_nonce=scan",
  ];
  if (app.localMode) paths.push(`/__clerk/v1/client/handshake?redirect_url=${encodeURIComponent(`${app.origin}/`)}`);
  return paths;
}

// ---------------------------------------------------------------------------
// Findings, triage, summary.

/** Wapiti's categories, and the module(s) that report each. */
const MODULE_OF = {
  "Backup file": "backup",
  "CRLF Injection": "crlf",
  "Content Security Policy Configuration": "csp",
  "Cross Site Request Forgery": "csrf",
  "Command execution": "exec",
  "Path Traversal": "file",
  "Htaccess Bypass": "htaccess",
  "HTTP Secure Headers": "http_headers",
  "HttpOnly Flag cookie": "cookieflags",
  "Secure Flag cookie": "cookieflags",
  "Open Redirect": "redirect",
  "SQL Injection": "sql",
  "Server Side Request Forgery": "ssrf",
  "Cross Site Scripting": "xss/permanentxss",
  "XML External Entity": "xxe",
  "Potentially dangerous file": "nikto/methods",
  "Internal Server Error": "any",
  "Resource consumption": "any",
};

/** The findings of one report, each with a signature that names no port: `category | METHOD /path | parameter | info`. */
function findingsOf(run, origin) {
  const data = JSON.parse(readFileSync(run.report, "utf8"));
  const strip = (text) => String(text ?? "").replaceAll(origin, "");
  const found = new Map();
  for (const kind of ["vulnerabilities", "anomalies"]) {
    for (const [category, entries] of Object.entries(data[kind] ?? {})) {
      for (const entry of entries) {
        const info = strip(entry.info).replace(/\s+/g, " ").trim();
        const signature = `${category} | ${entry.method} ${strip(entry.path)} | ${entry.parameter ?? ""} | ${info}`;
        if (found.has(signature)) continue;
        found.set(signature, {
          scan: run.name,
          kind,
          category,
          module: MODULE_OF[category] ?? "?",
          level: entry.level,
          signature,
          request: strip(entry.http_request),
        });
      }
    }
  }
  return [...found.values()].concat(clerkBudgetFindings(run));
}

// Anonymous requests cost Clerk a bounded amount per instance, whatever they carry
// (docs/security.md): a signed-out scan's thousands of requests should cost a few JWKS reads
// (bounded on their own, at most one a minute) and nothing else.
const ANONYMOUS_CALLS_ALLOWED = 5;

/** The scan's own finding, in keys mode: Backend API calls that a signed-out scan drove past the bound, per endpoint. */
function clerkBudgetFindings(run) {
  if (!run.clerkCalls || !run.name.endsWith("-signed-out")) return [];
  return Object.entries(run.clerkCalls)
    .filter(([endpoint, n]) => endpoint !== "bapi GET /v1/jwks" && n > ANONYMOUS_CALLS_ALLOWED)
    .map(([endpoint, n]) => ({
      scan: run.name,
      kind: "budget",
      category: "Clerk calls from anonymous requests",
      module: "scan",
      level: 2,
      signature: `Clerk calls from anonymous requests | ${endpoint.slice(5)} |  | more than ${ANONYMOUS_CALLS_ALLOWED} in one scan`,
      count: n,
    }));
}

// What a server prints at start and stop, beside its JSON request log.
const EXPECTED_OUTPUT =
  /^(Clerk - DEPRECATION WARNING|@clerk\/remix will only|Please migrate|Migration guide|React Router SDK|Teamwork listening|SIGTERM received)/;

/** What a server wrote besides its JSON log lines and its banners (errors, mostly), each first line with its count. */
function serverErrors(logFile) {
  if (!existsSync(logFile)) return [];
  const counts = new Map();
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    // First lines only: not JSON, not indented (a stack's frames, an error's fields), not a banner.
    if (!/^[A-Za-z]/.test(line) || EXPECTED_OUTPUT.test(line)) continue;
    const key = line.slice(0, 160);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort(([, a], [, b]) => b - a).slice(0, 5);
}

const globToRegExp = (glob) =>
  new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );

function loadTriage() {
  const { findings } = JSON.parse(readFileSync(TRIAGE_FILE, "utf8"));
  return findings.map((t) => ({ ...t, match: globToRegExp(t.signature), scanMatch: globToRegExp(t.scans ?? "*") }));
}

function summarize(runs, findings, triage) {
  console.log("\nScans");
  for (const run of runs) {
    const state = run.problems.length ? `FAILED: ${run.problems.join("; ")}` : "ok";
    // Modules that ran out of time attacked only part of what was crawled.
    const cut = run.cut.length ? `; cut short by the time limit: ${run.cut.join(", ")}` : "";
    console.log(
      `  ${run.name.padEnd(18)} ${String(run.seconds).padStart(4)} s  ${run.crawled} URLs and forms  ${state}${cut}`,
    );
  }
  console.log("\nFindings by scan, category (module) and level");
  const counts = new Map();
  for (const f of findings) {
    const key = `${f.scan.padEnd(18)} ${`${f.category} (${f.module})`.padEnd(52)} ${LEVELS[f.level] ?? f.level}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (!counts.size) console.log("  none");
  for (const [key, n] of [...counts].sort()) console.log(`  ${key}  ×${n}`);

  console.log("\nEach finding");
  const untriaged = [];
  for (const f of findings) {
    const verdict = triage.find((t) => t.match.test(f.signature) && t.scanMatch.test(f.scan));
    const label = verdict ? verdict.verdict : "UNTRIAGED";
    const count = f.count ? `, ${f.count} calls` : "";
    console.log(`  [${label}] ${f.scan}: ${f.signature} (${LEVELS[f.level] ?? f.level}${count})`);
    if (verdict) verdict.seen = true;
    else if (f.level >= failOn) untriaged.push(f);
  }
  // A bug's entry stays until it is fixed: one that matched nothing may be done with.
  const unmatched = triage.filter((t) => !t.seen);
  if (unmatched.length && !only) {
    console.log("\nTriage entries no finding matched (fixed, or no longer reported? remove them if so)");
    for (const t of unmatched) console.log(`  [${t.verdict}] ${t.scans ?? "*"}: ${t.signature}`);
  }
  return untriaged;
}

// ---------------------------------------------------------------------------
// The modes.

async function scanMode(mode, wapiti, sink, endpoint) {
  const analytics = { POSTHOG_KEY: "phc_security_scan", POSTHOG_HOST: sink.origin };
  const servers = [];
  const runs = [];
  let app;
  // Clerk's Backend API calls so far, by endpoint (keys mode: the stand-in counts them).
  let clerkCalls = null;
  /** One scan, with the Backend API calls the app made meanwhile. */
  const scan = async (name, jar) => {
    const before = clerkCalls ? await clerkCalls() : null;
    const run = await runWapiti(wapiti, { name, app, endpoint, jar });
    if (before) {
      const after = await clerkCalls();
      run.clerkCalls = Object.fromEntries(
        Object.entries(after)
          .map(([endpoint, n]) => [endpoint, n - (before[endpoint] ?? 0)])
          .filter(([, n]) => n > 0),
      );
    }
    runs.push(run);
    console.log(`  ${name}: ${run.seconds} s`);
  };
  try {
    let fapi;
    if (mode === "local") {
      app = await startApp("local", { ...analytics });
      app.localMode = true;
      fapi = app;
      servers.push(app);
    } else {
      // Clerk, stood in for by a local-mode server (its Backend API, JWKS and Frontend API).
      // Its control API (a test-only switch, on Clerk's stand-in, not on the app) counts the calls.
      const clerk = await startApp("keys-clerk", { LOG_LEVEL: "silent", CLERK_EMULATOR_CONTROL: "1" });
      servers.push(clerk);
      const secret = readFileSync(join(clerk.dataDir, "clerk-emulator-secret"), "utf8").trim();
      app = await startApp("keys", {
        ...analytics,
        CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`,
        CLERK_SECRET_KEY: `sk_live_emulator_${secret}`,
        CLERK_API_URL: `${clerk.origin}/__clerk/api`,
        SESSION_SECRET: "security-scan-session-secret-0123456789abcdef",
        TRUST_PROXY: "loopback",
      });
      servers.push(app);
      fapi = clerk;
      clerkCalls = async () => {
        const calls = await (await fetch(`${clerk.origin}/__clerk/_emulator/calls`)).json();
        return Object.fromEntries(Object.entries(calls).filter(([endpoint]) => endpoint.startsWith("bapi ")));
      };
    }
    console.log(`${mode} mode: app at ${app.origin}`);
    await scan(`${mode}-signed-out`);
    const jar = await signIn(fapi.origin, app.origin);
    if (!(await stillSignedIn(app, jar))) throw new Error(`the demo user's cookies do not sign in`);
    await scan(`${mode}-signed-in`, jar);
    return { mode, runs, app, servers, error: null };
  } catch (error) {
    // The other mode's scans go on; this one's failure is reported with them.
    return { mode, runs, app, servers, error: `${mode} mode: ${error instanceof Error ? error.message : error}` };
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

async function main() {
  const started = Date.now();
  mkdirSync(OUT, { recursive: true });
  const wapiti = ensureWapiti();
  console.log(`wapiti ${wapiti.version} (${wapiti.source}), modules: ${MODULES.join(", ")}`);
  if (spawnSync(process.execPath, ["scripts/ensure-built.mjs"], { cwd: ROOT, stdio: "inherit" }).status !== 0) {
    throw new Error("the build failed");
  }
  const triage = loadTriage();
  const sink = await startPostHogSink();
  const endpoint = await startOutOfBandEndpoint();
  const modes = only ? [only] : ["local", "keys"];
  let results;
  if (serial) {
    results = [];
    for (const mode of modes) results.push(await scanMode(mode, wapiti, sink, endpoint));
  } else {
    results = await Promise.all(modes.map((mode) => scanMode(mode, wapiti, sink, endpoint)));
  }
  await Promise.all([sink.close(), endpoint.close()]);

  const runs = results.flatMap((r) => r.runs);
  const findings = results.flatMap((r) =>
    r.runs.filter((run) => existsSync(run.report)).flatMap((run) => findingsOf(run, r.app?.origin ?? "")),
  );
  const untriaged = summarize(runs, findings, triage);

  // Anything that tried to leave loopback: the servers' guard and wapiti's.
  const blocked = results
    .flatMap((r) => [
      ...r.servers.map((s) => s.guardLog),
      ...r.runs.map((run) => join(OUT, `${run.name}-network-guard.log`)),
    ])
    .filter((file) => existsSync(file))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => `${file}: ${line}`),
    );

  console.log("\nWhat the app did meanwhile");
  for (const run of runs.filter((r) => r.clerkCalls)) {
    const total = Object.values(run.clerkCalls).reduce((sum, n) => sum + n, 0);
    const top = Object.entries(run.clerkCalls)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 4)
      .map(([endpoint, n]) => `${endpoint.slice(5)} ×${n}`);
    console.log(`  ${run.name}: ${total} calls to Clerk's Backend API${total ? ` (${top.join(", ")})` : ""}`);
  }
  console.log(`  PostHog stand-in: ${sink.received.length} requests forwarded by /ingest`);
  console.log(`  SSRF/XXE endpoint: ${endpoint.requests.length} requests from the app (wapiti reports them)`);
  for (const server of results.flatMap((r) => r.servers)) {
    for (const [line, n] of serverErrors(server.logFile)) console.log(`  ${server.name} server logged ×${n}: ${line}`);
  }

  const failures = [
    ...results.map((r) => r.error).filter(Boolean),
    ...runs.flatMap((run) => run.problems.map((p) => `${run.name}: ${p}`)),
  ];
  if (blocked.length) failures.push(`connections beyond loopback were refused:\n    ${blocked.join("\n    ")}`);
  if (untriaged.length) {
    failures.push(
      `${untriaged.length} finding(s) at ${LEVELS[failOn]} or above not in scripts/security-scan-triaged.json ` +
        "(triage each: a bug to fix, or a false positive to list with its reason)",
    );
  }
  writeFileSync(join(OUT, "summary.json"), JSON.stringify({ runs, findings, failures }, null, 2));
  console.log(`\nReports: ${OUT}. Took ${Math.round((Date.now() - started) / 1000)} s.`);
  if (failures.length) {
    console.error(`\nFAILED:\n  ${failures.join("\n  ")}`);
    process.exitCode = 1;
  } else {
    console.log("\nNo untriaged finding.");
  }
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  killGroups();
}
