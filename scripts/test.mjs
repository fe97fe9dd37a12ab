// `npm test`: type check, lint, build, vitest (unit, then integration against
// the built server, then Firefox), Playwright (Chromium, JavaScript on and
// off). Ends with the time of each phase and one line, "N passed, N failed,
// N skipped", summing every check and test that ran.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";

const totals = { passed: 0, failed: 0, skipped: 0 };
let summary = "";
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } }).status === 0;

// How long each phase took, printed at the end: what to look at when the suite gets slow.
const phases = [];
function timed(name, work) {
  const started = Date.now();
  try {
    return work();
  } finally {
    phases.push([name, (Date.now() - started) / 1000]);
  }
}

function check(name, ok) {
  totals[ok ? "passed" : "failed"] += 1;
  console.log(`\n[${ok ? "ok" : "FAILED"}] ${name}\n`);
  return ok;
}

rmSync("test-results", { recursive: true, force: true });
mkdirSync("test-results", { recursive: true });
// Every server the tests start records the emulator's Clerk API answers here;
// each test checks its own against Clerk's spec, and the end checks them all.
const contractDir = resolve("test-results/contract");
process.env.CLERK_CONTRACT_DIR = contractDir;

timed("type check", () => check("type check (tsc --noEmit)", run("npx", ["tsc", "--noEmit"])));
timed("lint", () => check("lint (eslint, prettier --check)", run("npm", ["run", "lint"])));
const built = timed("build", () => check("build (remix build + server bundle)", run("npm", ["run", "build"])));

/** One vitest project, its results added to the totals. */
function vitestProject(project) {
  const file = `test-results/vitest-${project}.json`;
  run("npx", ["vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile=${file}`]);
  if (existsSync(file)) {
    const report = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += report.numPassedTests;
    // A file that failed without a failing test (an import or hook error) counts once; one whose tests failed, by its tests.
    const brokenFiles = (report.testResults ?? []).filter(
      (file) => file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"),
    ).length;
    totals.failed += report.numFailedTests + brokenFiles;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  } else {
    check(`vitest report (${project})`, false);
  }
}

if (built) {
  timed("unit", () => vitestProject("unit"));
  timed("integration", () => vitestProject("integration"));
  timed("firefox", () => vitestProject("firefox"));
  timed("e2e (Playwright)", () => run("npx", ["playwright", "test"], { CI: "1" }));
  if (existsSync("test-results/playwright.json")) {
    const { stats } = JSON.parse(readFileSync("test-results/playwright.json", "utf8"));
    totals.passed += stats.expected + stats.flaky;
    totals.failed += stats.unexpected;
    totals.skipped += stats.skipped;
  } else {
    check("playwright report", false);
  }

  const contract = timed("contract", () =>
    spawnSync("npx", ["vite-node", "scripts/check-contract.ts", contractDir], { encoding: "utf8" }),
  );
  process.stdout.write(contract.stdout);
  process.stderr.write(contract.stderr.replace(/^npm warn .*\n/gm, ""));
  check("every Clerk API answer of the suite against Clerk's OpenAPI spec", contract.status === 0);
  summary = contract.stdout.split("\n").find((line) => line.startsWith("contract:")) ?? "contract: no report";
}

if (summary) console.log(summary);
const total = phases.reduce((sum, [, seconds]) => sum + seconds, 0);
console.log(
  `phases: ${phases.map(([name, seconds]) => `${name} ${seconds.toFixed(0)} s`).join(", ")}; ${total.toFixed(0)} s in all`,
);

console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
