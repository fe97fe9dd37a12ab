/**
 * Each page's cost on one core, for the capacity model (docs/scaling.md):
 * one instance, as `npm start` and the image run it, in keys mode against the
 * Clerk stand-in, signed in as Ada (warm caches: the steady state the budget
 * run measures the calls of), each page under autocannon in turn, a few
 * rounds. The server's CPU ms per request (from /proc) gives the requests a
 * second one core serves, whatever else shares this machine.
 */
import autocannon from "autocannon";
import { MEMBERS, ORG_HOME } from "./fleet";
import { DOCUMENTED_MEMORY_ENV } from "./memory";
import { BROWSER_HEADERS, cpuMs, startApp, startClerk, url, waitFor } from "./servers";
import { fmtSpread, spread, type Spread } from "./stats";

const ROUNDS = 3;
const DURATION_S = 5;
const CONNECTIONS = 10;

/** The pages of the budget's mix (and the landing page), with the share of the mix each has. */
export const MIX_PAGES = [
  { name: "landing (signed out)", path: "/", signedIn: false, share: 0 },
  { name: "organization home", path: ORG_HOME, signedIn: true, share: 0.5 },
  { name: "members (an admin's)", path: MEMBERS, signedIn: true, share: 0.25 },
  { name: "/orgs", path: "/orgs", signedIn: true, share: 0.15 },
  { name: "switcher's list (/resources/organizations)", path: "/resources/organizations", signedIn: true, share: 0.1 },
] as const;

export type PageCost = { name: string; share: number; cpuMs: Spread; rps: Spread; errors: number };

export async function pagesPhase(port = 4790, clerkPort = 4791): Promise<PageCost[]> {
  const clerk = await startClerk(clerkPort);
  const app = startApp(port, { ...clerk.keys, ...DOCUMENTED_MEMORY_ENV, LOG_LEVEL: "silent" });
  await waitFor(url(port, "/healthz"));
  const targets = MIX_PAGES.map((page) => ({
    ...page,
    headers: { ...BROWSER_HEADERS, ...(page.signedIn ? { Cookie: clerk.cookie } : {}) },
  }));
  for (const t of targets) {
    await autocannon({ url: url(port, t.path), headers: t.headers, connections: CONNECTIONS, duration: 2 });
  }
  const rounds = targets.map(() => ({ cpuMs: [] as number[], rps: [] as number[], errors: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const before = cpuMs(app.pid!);
      const r = await autocannon({
        url: url(port, t.path),
        headers: t.headers,
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      const requests = Math.max(1, r.requests.total);
      rounds[i]!.cpuMs.push((cpuMs(app.pid!) - before) / requests);
      rounds[i]!.rps.push(r.requests.average);
      rounds[i]!.errors += r.errors + r.non2xx + r.timeouts;
    }
  }
  return targets.map((t, i) => ({
    name: t.name,
    share: t.share,
    cpuMs: spread(rounds[i]!.cpuMs),
    rps: spread(rounds[i]!.rps),
    errors: rounds[i]!.errors,
  }));
}

export function pageRows(pages: PageCost[]): string[] {
  const mix = pages.reduce((sum, p) => sum + p.share * p.cpuMs.median, 0);
  return [
    `| page (1 instance, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s) | share of the budget's mix | server CPU ms per request | requests/s per core (1,000 / CPU ms) | req/s measured (this machine, shared with the load generator) | errors |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...pages.map(
      (p) =>
        `| ${p.name} | ${Math.round(p.share * 100)}% | ${fmtSpread(p.cpuMs, 2)} | ${Math.round(1000 / p.cpuMs.median)} | ${fmtSpread(p.rps)} | ${p.errors} |`,
    ),
    `| the budget's mix (weighted) | 100% | ${mix.toFixed(2)} | ${Math.round(1000 / mix)} | | |`,
  ];
}
