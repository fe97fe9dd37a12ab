/**
 * The servers the measuring phases share, built and started once: two Clerk
 * stand-ins (one near, one `LATENCY_MS` away), the app against each, the
 * processes that price metrics, two fresh instances for the memory phase,
 * the bare Remix baseline and Clerk's quickstart peer.
 */
import { execSync } from "node:child_process";
import { join } from "node:path";
import { pinnedNode } from "../scripts/pinned-node.mjs";
import { DOCUMENTED_HEAP, DOCUMENTED_MEMORY_ENV } from "./memory";
import { ROOT, SHEDDING_ENV, start, startApp, startClerk, url, waitFor } from "./servers";

export const LATENCY_MS = 80;
export const ORG_HOME = "/orgs/analytical-engines";
export const MEMBERS = `${ORG_HOME}/members`;

export type Fleet = Awaited<ReturnType<typeof startFleet>>;

/** This app's production build, as `npm start` serves it. */
export function buildApp() {
  execSync("npm run build", { cwd: ROOT, stdio: "ignore" });
}

export function buildApps() {
  console.log("Building the app, the baseline and the peer…");
  buildApp();
  for (const dir of ["bench/baseline", "bench/peer"])
    execSync(`${join(ROOT, "node_modules/.bin/remix")} build`, { cwd: join(ROOT, dir), stdio: "ignore" });
}

/**
 * Memory: two fresh instances that serve only the memory phase, one with the heap `npm start` sets,
 * both on the Node the image runs (V8's collector and its defaults change between Node lines).
 */
export function startMemoryApps(keys: Record<string, string>) {
  const imageNode = pinnedNode();
  return {
    uncapped: { name: "uncapped", port: 4714, pid: startApp(4714, { ...keys, ...SHEDDING_ENV }, imageNode).pid! },
    capped: {
      name: `${DOCUMENTED_HEAP}, MALLOC_ARENA_MAX=${DOCUMENTED_MEMORY_ENV.MALLOC_ARENA_MAX} (npm start, the image)`,
      port: 4715,
      pid: startApp(4715, { ...keys, ...DOCUMENTED_MEMORY_ENV, ...SHEDDING_ENV }, imageNode).pid!,
    },
  };
}

/** `npm run bench -- --only memory`: the Clerk stand-in and the memory phase's two instances alone. */
export async function startMemoryFleet() {
  const clerk = await startClerk(4701);
  const memoryApps = startMemoryApps(clerk.keys);
  await Promise.all(Object.values(memoryApps).map(({ port }) => waitFor(url(port, "/healthz"))));
  return { clerk, memoryApps };
}

export async function startFleet() {
  const ports = { clerk: 4701, app: 4702, baseline: 4704, peer: 4705, farClerk: 4706, farApp: 4707 };
  const clerk = await startClerk(ports.clerk);
  const farClerk = await startClerk(ports.farClerk, LATENCY_MS);
  const app = startApp(ports.app, clerk.keys);
  // The price of Prometheus metrics (docs/operations.md): the organization home from processes that
  // serve nothing else, two without metrics and two recording them. Two processes of one build
  // differ on their own (the first row of the cost table shows by how much), so each side is a pair.
  const costApp = (port: number, metricsPort?: number) => ({
    port,
    pid: startApp(port, metricsPort ? { ...clerk.keys, METRICS_PORT: String(metricsPort) } : clerk.keys).pid!,
    metrics: metricsPort ? url(metricsPort, "/metrics") : undefined,
  });
  const cost = {
    plain1: costApp(4710),
    plain2: costApp(4711),
    metered1: costApp(4712, 4812),
    metered2: costApp(4713, 4813),
  };
  startApp(ports.farApp, farClerk.keys);
  const memoryApps = startMemoryApps(clerk.keys);
  const baseline = start("baseline", ["server.mjs"], { PORT: String(ports.baseline) }, join(ROOT, "bench/baseline"));
  const peer = start(
    "peer",
    ["server.mjs"],
    { ...clerk.keys, PORT: String(ports.peer), APP_DIR: "../peer" },
    join(ROOT, "bench/baseline"),
  );
  await Promise.all([
    waitFor(url(ports.app, "/healthz")),
    ...Object.values(cost).map(({ port }) => waitFor(url(port, "/healthz"))),
    ...Object.values(memoryApps).map(({ port }) => waitFor(url(port, "/healthz"))),
    waitFor(url(ports.farApp, "/healthz")),
    waitFor(url(ports.baseline)),
    waitFor(url(ports.peer)),
  ]);
  return { ports, clerk, farClerk, app, cost, memoryApps, baseline, peer };
}
