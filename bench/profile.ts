/**
 * `npm run bench -- --only profile [path]`: where a page's CPU time goes
 * under load, beside a bare Remix page's. Each server runs with V8's
 * sampling profiler on (`--cpu-prof`): this app as `npm start` runs it (keys
 * mode, the Clerk stand-in in a process of its own, Ada signed in, logs
 * written), and the bench's bare Remix 2 page. autocannon loads each; each
 * sample of the measured window is put in one part (session check,
 * rendering, compression…) by what its stack holds, and the parts are given
 * as CPU ms per request: the difference between the two columns is what the
 * page costs beyond Remix itself.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { ORG_HOME } from "./fleet";
import { DOCUMENTED_MEMORY_ENV } from "./memory";
import { BROWSER_HEADERS, ROOT, start, startApp, startClerk, url, waitFor } from "./servers";
import { fmt } from "./stats";

const WARM_UP_S = 3;
const DURATION_S = 10;
const CONNECTIONS = 10;
/** Left out at each end of the measured window: the profile's clock and the load's are aligned only roughly. */
const EDGE_MS = 300;

type CallFrame = { functionName: string; url: string };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/**
 * The parts, most specific first: a sample goes to the first whose test one
 * of its stack's frames passes (zlib under React's render is compression).
 */
const PARTS: { name: string; test: (frame: CallFrame) => boolean }[] = [
  { name: "garbage collection", test: (f) => f.functionName === "(garbage collector)" },
  { name: "compression (zlib)", test: (f) => f.url === "node:zlib" },
  { name: "Redis", test: (f) => /node_modules\/(ioredis|redis|@redis)\//.test(f.url) },
  {
    name: "logging",
    test: (f) => f.url.includes("node_modules/pino") || /^(logRequest|jsonLine)$/.test(f.functionName),
  },
  { name: "metrics (prom-client)", test: (f) => f.url.includes("node_modules/prom-client/") },
  {
    name: "session check (Clerk's SDK, signatures, cookies)",
    test: (f) =>
      f.url.includes("node_modules/@clerk/backend/") ||
      /^(authenticate|settledState|clerkState|shownToClerk|withoutForgedTokens|signedByClerk|resolveHandshakeNonce)$/.test(
        f.functionName,
      ),
  },
  {
    name: "rendering (React, Radix, Clerk's provider, the app's components)",
    test: (f) => /node_modules\/(react-dom|@radix-ui|@clerk\/clerk-react)\//.test(f.url),
  },
  { name: "Remix (routing, loaders' plumbing, data)", test: (f) => f.url.includes("node_modules/@remix-run/") },
  {
    name: "Request, Headers, web streams",
    test: (f) => f.url.includes("undici") || f.url.includes("internal/webstreams"),
  },
  {
    name: "express and Node's HTTP",
    test: (f) => f.url.includes("node_modules/express/") || /node:_?http/.test(f.url),
  },
  { name: "the app's own code (loaders, middleware)", test: (f) => /\/build\/(server\.js|index\.js)/.test(f.url) },
];
const OTHER = "other (V8's program, Node's internals)";

/** Each part's CPU ms over the profile's samples between `from` and `to` (ms after the profile started). */
function parts(profile: CpuProfile, from: number, to: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const partOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    if (partOf.has(id)) return partOf.get(id)!;
    const frames: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    const part =
      frames[0]!.functionName === "(idle)" ? null : (PARTS.find(({ test }) => frames.some(test))?.name ?? OTHER);
    partOf.set(id, part);
    return part;
  };
  const totals = new Map<string, number>();
  let t = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i]! / 1000;
    t += delta;
    if (t < from || t > to) return;
    const part = classify(id);
    if (part) totals.set(part, (totals.get(part) ?? 0) + delta);
  });
  return totals;
}

type Target = {
  name: string;
  /** Starts the server with the profiler's flags (`node` arguments before the script). */
  start(nodeArgs: string[]): ChildProcess;
  /** What answers once the server is up. */
  ready: string;
  url: string;
  headers?: Record<string, string>;
};
export type Profiled = { name: string; requests: number; rps: number; parts: Map<string, number> };

/** One server under load with the profiler on: its parts as CPU ms per request of the measured window. */
async function profiled({ name, start: startServer, ready, url: target, headers }: Target): Promise<Profiled> {
  const dir = mkdtempSync(join(tmpdir(), "teamwork-profile-"));
  const spawned = performance.now();
  const server = startServer(["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  try {
    await waitFor(ready);
    const load = { url: target, headers: { ...BROWSER_HEADERS, ...headers }, connections: CONNECTIONS };
    await autocannon({ ...load, duration: WARM_UP_S });
    const from = performance.now() - spawned;
    const r = await autocannon({ ...load, duration: DURATION_S });
    const to = performance.now() - spawned;
    const errors = r.errors + r.non2xx + r.timeouts;
    if (errors > 0) throw new Error(`${name}: ${errors} of ${r.requests.total} requests failed`);
    const exited = new Promise((done) => server.once("exit", done));
    server.kill("SIGTERM");
    await exited;
    const file = readdirSync(dir).find((entry) => entry.endsWith(".cpuprofile"));
    if (!file) throw new Error(`${name} wrote no CPU profile in ${dir}`);
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    const measured = parts(profile, from + EDGE_MS, to - EDGE_MS);
    // The requests of the measured window (the load's, less its edges).
    const requests = r.requests.total * ((to - from - 2 * EDGE_MS) / (to - from));
    for (const [part, ms] of measured) measured.set(part, ms / requests);
    return { name, requests: r.requests.total, rps: r.requests.average, parts: measured };
  } finally {
    server.kill("SIGKILL");
  }
}

/** The page at `path` (the organization home by default), then the bare Remix page. */
export async function profilePhase(path = ORG_HOME, port = 4792, clerkPort = 4793, baselinePort = 4794) {
  const clerk = await startClerk(clerkPort);
  const app = await profiled({
    name: `${path}, signed in`,
    start: (nodeArgs) => startApp(port, { ...clerk.keys, ...DOCUMENTED_MEMORY_ENV }, undefined, nodeArgs),
    ready: url(port, "/healthz"),
    url: url(port, path),
    headers: { Cookie: clerk.cookie },
  });
  const bare = await profiled({
    name: "bare Remix 2 page",
    start: (nodeArgs) =>
      start("baseline", [...nodeArgs, "server.mjs"], { PORT: String(baselinePort) }, join(ROOT, "bench/baseline")),
    ready: url(baselinePort),
    url: url(baselinePort),
  });
  return [app, bare] as const;
}

export function profileRows(results: readonly Profiled[]): string[] {
  const names = [...new Set([...PARTS.map((p) => p.name), OTHER])].filter((name) =>
    results.some((r) => (r.parts.get(name) ?? 0) > 0),
  );
  const total = (r: Profiled) => [...r.parts.values()].reduce((sum, ms) => sum + ms, 0);
  const cell = (r: Profiled, ms: number) => `${fmt(ms, 3)} (${fmt((ms / total(r)) * 100, 0)}%)`;
  return [
    `Main-thread CPU ms per request (share), from V8's samples; ${DURATION_S} s of load, ${CONNECTIONS} connections, profiler on (it slows code made of many small calls most: read the shares):`,
    "",
    `| part (what the sample's stack holds, most specific first) | ${results.map((r) => `${r.name}: ${fmt(r.rps)} req/s`).join(" | ")} |`,
    `| --- | ${results.map(() => "---:").join(" | ")} |`,
    ...names
      .sort((a, b) => (results[0]!.parts.get(b) ?? 0) - (results[0]!.parts.get(a) ?? 0))
      .map((name) => `| ${name} | ${results.map((r) => cell(r, r.parts.get(name) ?? 0)).join(" | ")} |`),
    `| all | ${results.map((r) => fmt(total(r), 3)).join(" | ")} |`,
  ];
}
