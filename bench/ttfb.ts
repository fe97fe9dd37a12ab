/**
 * Time to first byte, one request at a time, with Clerk near and
 * `LATENCY_MS` away: the latency phase (the same pages again and again,
 * on a fresh server) and the cold phase (the first view of new organizations).
 */
import { backendApi, newTeam } from "../tests/support/emulator-api";
import { emulatorCookie } from "../tests/support/session";
import { LATENCY_MS, MEMBERS, ORG_HOME, type Fleet } from "./fleet";
import { BROWSER_HEADERS, url } from "./servers";
import { fmt, median } from "./stats";

type Latency = [string, { first: number; p50: number }, { first: number; p50: number }][];
type Cold = [string, number, number][];

/** Time to the response headers of `url`, one request at a time: the first (cold caches) and the median. */
async function timeToFirstByte(url: string, cookie: string, n = 25) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { ...BROWSER_HEADERS, Cookie: cookie }, redirect: "manual" });
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    await res.arrayBuffer();
  }
  return { first: times[0]!, p50: median(times) };
}

/**
 * Time to the response headers of the first view of a page of each of `n`
 * new organizations (nobody has viewed them: every cache is cold), for its
 * admin with it active, one at a time: the median.
 */
async function coldTimeToFirstByte(
  app: string,
  clerk: { origin: string; dataDir: string },
  path: (slug: string) => string,
  n = 20,
) {
  const api = backendApi(clerk.origin, clerk.dataDir);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const team = await newTeam(api, { members: 1 });
    const cookie = await emulatorCookie(clerk.origin, team.admin.email, team.org.id);
    const start = performance.now();
    const res = await fetch(app + path(team.org.slug), {
      headers: { ...BROWSER_HEADERS, Cookie: cookie },
      redirect: "manual",
    });
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`${path(team.org.slug)} answered ${res.status}`);
    await res.arrayBuffer();
  }
  return median(times);
}

/** Against a Clerk `LATENCY_MS` away, on a fresh server (cold caches), one request at a time; then Clerk near. */
export async function latencyPhase({ ports, clerk, farClerk }: Fleet): Promise<Latency> {
  console.log(`Latency: the stand-in adds ${LATENCY_MS} ms to each Backend API answer; 25 requests each, in turn…`);
  const latency: Latency = [];
  for (const [name, path] of [
    ["organization home", ORG_HOME],
    ["members", MEMBERS],
  ] as const) {
    const far = await timeToFirstByte(url(ports.farApp, path), farClerk.cookie);
    const near = await timeToFirstByte(url(ports.app, path), clerk.cookie);
    latency.push([name, near, far]);
  }
  return latency;
}

export async function coldPhase({ ports, clerk, farClerk }: Fleet): Promise<Cold> {
  console.log("Cold: the first view of each of 20 new organizations, Clerk near and 80 ms away…");
  const cold: Cold = [];
  for (const [name, path] of [
    ["organization home", (slug: string) => `/orgs/${slug}`],
    ["members", (slug: string) => `/orgs/${slug}/members`],
  ] as const) {
    const near = await coldTimeToFirstByte(`http://127.0.0.1:${ports.app}`, clerk, path);
    const far = await coldTimeToFirstByte(`http://127.0.0.1:${ports.farApp}`, farClerk, path);
    cold.push([name, near, far]);
  }
  return cold;
}

export function printLatency(latency: Latency) {
  console.log(
    `\n| TTFB, one request at a time | own time p50 ms | Clerk +${LATENCY_MS} ms: first view (cold) | Clerk +${LATENCY_MS} ms: p50 | target p50 ≤ ${LATENCY_MS} + 1.3 × own |\n| --- | ---: | ---: | ---: | ---: |`,
  );
  for (const [name, near, far] of latency)
    console.log(
      `| ${name} | ${fmt(near.p50, 1)} | ${fmt(far.first, 1)} | ${fmt(far.p50, 1)} | ${fmt(LATENCY_MS + 1.3 * near.p50, 1)} (${far.p50 <= LATENCY_MS + 1.3 * near.p50 ? "met" : "missed"}) |`,
    );
}

export function printCold(cold: Cold) {
  console.log(
    `\n| TTFB, first view of 20 new organizations (caches cold), median | own time ms (Clerk near) | Clerk +${LATENCY_MS} ms | target ≤ ${LATENCY_MS} + 1.3 × own (one round trip) |\n| --- | ---: | ---: | ---: |`,
  );
  for (const [name, near, far] of cold)
    console.log(
      `| ${name} | ${fmt(near, 1)} | ${fmt(far, 1)} | ${fmt(LATENCY_MS + 1.3 * near, 1)} (${far <= LATENCY_MS + 1.3 * near ? "met" : "missed"}) |`,
    );
}
