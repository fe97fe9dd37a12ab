/**
 * `npm run bench`: one run, one table. Servers on loopback, Clerk played by the
 * bundled emulator in a process of its own (so the app pays for Clerk as a
 * remote service: JWT verification and HTTP calls), autocannon for load,
 * Debian's Chromium for page metrics, /proc for memory.
 *
 * The phases measure in this order (latency, cold, load, memory, browser),
 * then, with those servers stopped, their tables are printed; Clerk's budget,
 * fair share, stalled bodies and the dev loop start servers of their own and
 * print as they end.
 */
import {
  BUDGET_HEADER,
  budgetFailureLines,
  budgetRows,
  budgetRun,
  changesLines,
  coldStartLines,
  redisLines,
  refreshCost,
  VIEWS_PER_SECOND,
} from "./budget";
import { bodiesLines, bodiesRun } from "./bodies";
import { browserPhase, printPages } from "./browser";
import { devLoopPhase } from "./dev-loop";
import { FAIR_SHARE_SECONDS, fairShareFailureLines, fairShareLines, fairShareRun } from "./fair-share";
import { unexpectedFailures } from "./failures";
import { buildApp, buildApps, ORG_HOME, startFleet, startMemoryFleet, type Fleet } from "./fleet";
import { CONNECTIONS, loadPhase, printLoad } from "./load";
import { memoryRows, memoryRuns } from "./memory";
import { pageRows, pagesPhase } from "./pages";
import { profilePhase, profileRows } from "./profile";
import { signUpPeople } from "./people";
import { stackServers, stopAll, url } from "./servers";
import { backendApi } from "../tests/support/emulator-api";
import { stopStacks } from "./stack";
import { coldPhase, latencyPhase, printCold, printLatency } from "./ttfb";

/**
 * Memory: the landing page, the organization home and its members, on two
 * fresh instances, viewed by 200 people in 20 organizations (each request a
 * random one's: one person's views would meet that person's allowance of
 * Clerk calls, not the server's limits).
 */
async function memoryPhase({ clerk, memoryApps }: Pick<Fleet, "clerk" | "memoryApps">) {
  console.log(
    `Memory: the landing page, the organization home and its members, ${process.env.BENCH_MEMORY_ONE_PERSON ? "Ada's" : "200 people's"}, 3 × ${process.env.BENCH_MEMORY_REQUESTS ?? "8,000"} requests on two fresh instances…`,
  );
  // BENCH_MEMORY_ONE_PERSON=1: Ada's views alone, the mix of the runs before issue 70 (her allowance then shows).
  const { people } = process.env.BENCH_MEMORY_ONE_PERSON
    ? { people: [{ cookie: clerk.cookie, orgSlug: ORG_HOME.split("/")[2]!, admin: true }] }
    : await signUpPeople(clerk.origin, backendApi(clerk.origin, clerk.dataDir), {
        organizations: 20,
        perOrganization: 10,
        name: "Memory",
      });
  const admins = people.filter((p) => p.admin);
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const targets = Object.values(memoryApps).map(({ name, port, pid }) => ({ name, origin: url(port), pid }));
  const runs = await memoryRuns(
    targets,
    () => {
      const roll = Math.random();
      if (roll < 1 / 3) return { path: "/" };
      const person = roll < 2 / 3 ? pick(people) : pick(admins);
      const path = roll < 2 / 3 ? `/orgs/${person.orgSlug}` : `/orgs/${person.orgSlug}/members`;
      return { path, headers: { Cookie: person.cookie } };
    },
    CONNECTIONS,
  );
  return memoryRows(runs, targets[0]!, targets[1]!);
}

/**
 * Clerk's budget: ten instances sharing Redis (on this machine: the figure is
 * calls per view), with Clerk's webhooks and without, then the two instances
 * of the runs before (docs/performance.md), for comparison.
 */
async function budgetPhase() {
  // BENCH_BUDGET_INSTANCES=2 (or 10): only the runs of that fleet size, for a machine that cannot start ten.
  const only = process.env.BENCH_BUDGET_INSTANCES ? Number(process.env.BENCH_BUDGET_INSTANCES) : null;
  const runs = [
    { instances: 10, webhooks: true, basePort: 4740 },
    { instances: 10, webhooks: false, basePort: 4760 },
    { instances: 2, webhooks: true, basePort: 4720 },
    { instances: 2, webhooks: false, basePort: 4730 },
  ].filter(({ instances }) => only === null || instances === only);
  if (runs.length === 0) throw new Error("BENCH_BUDGET_INSTANCES must be 10 or 2");
  console.log(
    `\nClerk's budget: ${[...new Set(runs.map((r) => r.instances))].join(" instances, then ")} instances, sharing Redis; 200 people in 20 organizations browsing for 30 s at ${VIEWS_PER_SECOND} views a second…`,
  );
  const budget = [];
  for (const options of runs) {
    budget.push(await budgetRun(stackServers, options));
  }
  console.log("");
  for (const row of [...BUDGET_HEADER, ...budgetRows(budget)]) console.log(row);
  console.log(`\n${refreshCost(budget[0]!)}`);
  for (const line of [...coldStartLines(budget), ...changesLines(budget), ...redisLines(budget)]) console.log(line);
  console.log("");
  for (const line of budgetFailureLines(budget)) console.log(line);
}

/** Fair share: one member's attacks, floods of made-up handshake nonces (a leaked token's among them) and a crowd of 100 accounts, on two instances in keys mode. */
async function fairSharePhase() {
  const seconds = process.env.BENCH_FAIR_SHARE_SECONDS ?? FAIR_SHARE_SECONDS;
  console.log(
    `\nFair share: 2 instances sharing Redis, webhooks on, the default budget; each attack ${seconds} s while 10 other people browse, then floods of made-up handshake nonces (unbound, bound, with a leaked token) and 100 accounts on the deferrable paths…`,
  );
  const run = await fairShareRun(stackServers, 4790);
  console.log("");
  for (const line of fairShareLines(run)) console.log(line);
  console.log("");
  for (const line of fairShareFailureLines(run)) console.log(line);
}

/** Stalled bodies (issue 67, finding 5): the finding's two attacks at full size and the fix's target, on one instance reached directly. */
async function bodiesPhase() {
  console.log(
    "\nStalled bodies: one instance reached directly (no proxy); 64 stalled webhook bodies from 2 addresses, 256 stalled forms from 4, then 1,024 from 64, each while Clerk delivers a removal and other people send forms…",
  );
  const rows = await bodiesRun(4820);
  console.log("");
  for (const line of bodiesLines(rows)) console.log(line);
}

async function main() {
  // `npm run bench -- --only budget`: Clerk's budget alone (its servers are its own).
  if (process.argv.slice(2).join(" ") === "--only budget") {
    buildApp();
    return budgetPhase();
  }
  // `npm run bench -- --only fair-share`: one person's and one flood's share of Clerk's budget (issue 54).
  if (process.argv.slice(2).join(" ") === "--only fair-share") {
    buildApp();
    return fairSharePhase();
  }
  // `npm run bench -- --only bodies`: stalled bodies against Clerk's webhooks and people's forms (issue 67).
  if (process.argv.slice(2).join(" ") === "--only bodies") {
    buildApp();
    return bodiesPhase();
  }
  // `npm run bench -- --only pages`: each page's CPU per request on one instance (docs/scaling.md).
  if (process.argv.slice(2).join(" ") === "--only pages") {
    buildApp();
    console.log("Each page's CPU per request, one instance as npm start runs it…");
    const pages = await pagesPhase();
    stopAll();
    for (const row of pageRows(pages)) console.log(row);
    return;
  }
  // `npm run bench -- --only profile [path]`: where a page's CPU time goes under load (the organization home by default).
  if (process.argv[2] === "--only" && process.argv[3] === "profile") {
    buildApps();
    console.log(
      "Where the CPU time goes: this app's page and a bare Remix page under load, V8's sampling profiler on…",
    );
    const results = await profilePhase(process.argv[4]);
    stopAll();
    for (const row of profileRows(results)) console.log(row);
    return;
  }
  // `npm run bench -- --only memory`: the memory table alone (two fresh instances, the Clerk stand-in).
  if (process.argv.slice(2).join(" ") === "--only memory") {
    buildApp();
    const memory = await memoryPhase(await startMemoryFleet());
    stopAll();
    for (const row of memory) console.log(row);
    return;
  }
  // `npm run bench -- --only load`: the load table and its ratios alone (the organization home against a bare page).
  if (process.argv.slice(2).join(" ") === "--only load") {
    buildApps();
    const load = await loadPhase(await startFleet());
    stopAll();
    printLoad(load);
    return;
  }
  buildApps();
  const fleet = await startFleet();
  const latency = await latencyPhase(fleet);
  const cold = await coldPhase(fleet);
  const load = await loadPhase(fleet);
  const memory = await memoryPhase(fleet);
  const pages = await browserPhase(fleet);
  stopAll();

  printLoad(load);
  printLatency(latency);
  printCold(cold);
  printPages(pages);
  console.log("");
  for (const row of memory) console.log(row);

  await budgetPhase();
  await fairSharePhase();
  await bodiesPhase();
  await devLoopPhase();
}

// Interrupted or crashed, the bench still stops what it started (the phases' own `finally` blocks never run):
// killing a child is synchronous, so it works from "exit" too.
process.once("exit", () => {
  stopStacks();
  stopAll();
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

main()
  .then(() => {
    // A phase's failures it did not expect fail the bench, loudly, after every table is out.
    const unexpected = unexpectedFailures();
    if (unexpected.length === 0) return;
    console.error(`\nThe bench FAILED: failures no phase expected:\n${unexpected.map((u) => `- ${u}`).join("\n")}`);
    process.exitCode = 1;
  })
  .catch((error) => {
    console.error(error);
    stopStacks();
    stopAll();
    process.exit(1);
  });
