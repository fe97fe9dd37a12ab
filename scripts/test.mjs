// `npm test`: the Core 3 fixture's install, the type check and the lint side
// by side, then build, vitest (unit, then integration against the built server
// on the production image's Node, then Firefox), Playwright (Chromium,
// JavaScript on and off); beside all of them, from the fixture's install on,
// the emulator package's own tests, which need no build. Ends with the time of
// each phase and one line, "N passed, N failed, N skipped", summing every check
// and test that ran.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { OTHER_NODES, PINNED_NODE, pinnedNode } from "./pinned-node.mjs";

const totals = { passed: 0, failed: 0, skipped: 0 };
// What failed, by name, printed above the totals: the end of the output may be all a reader of CI gets.
const failures = [];
let summary = "";
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } }).status === 0;

// How long each phase took, printed at the end: what to look at when the suite gets slow.
const phases = [];
const suiteStarted = Date.now();
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
  if (!ok) failures.push(`check: ${name}`);
  console.log(`\n[${ok ? "ok" : "FAILED"}] ${name}\n`);
  return ok;
}

rmSync("test-results", { recursive: true, force: true });
mkdirSync("test-results", { recursive: true });
// Every server the tests start records the emulator's Clerk API answers here;
// each test checks its own against Clerk's spec, and the end checks them all.
const contractDir = resolve("test-results/contract");
process.env.CLERK_CONTRACT_DIR = contractDir;

/**
 * A command run beside others: its output kept and printed whole when it
 * ends (so that outputs do not interleave), with whether it passed and how
 * long it took.
 */
function beside(cmd, args) {
  const started = Date.now();
  return new Promise((done) => {
    let output = "";
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", (error) => (output += `${error}\n`));
    child.once("close", (code) => done({ ok: code === 0, output, seconds: (Date.now() - started) / 1000 }));
  });
}

// tests/fixtures/core3 is an app of its own (Clerk's Core 3 SDK, driven by
// tests/integration/fixture-core3.test.ts): its packages from its own lock,
// installed again only when the lock changed since the last install.
async function installFixture(dir) {
  const lock = readFileSync(join(dir, "package-lock.json"));
  const digest = createHash("sha256").update(lock).digest("hex");
  const mark = join(dir, "node_modules", ".installed-lock-sha256");
  if (existsSync(mark) && readFileSync(mark, "utf8") === digest) return { ok: true, output: "", seconds: 0 };
  const install = await beside("npm", ["ci", "--prefix", dir, "--no-audit", "--no-fund"]);
  if (install.ok) writeFileSync(mark, digest);
  return install;
}

// The fixture's install, the type check and the lint need nothing of each other: they run side by side
// (on two cores, about a minute less than one after another). Their outputs are printed as each ends.
const checksStarted = Date.now();
const fixture = installFixture("tests/fixtures/core3");
const typeCheck = beside("npx", ["tsc", "--noEmit"]);
const lint = beside("npm", ["run", "lint"]);
function collect(name, what, result) {
  process.stdout.write(result.output);
  phases.push([name, result.seconds]);
  return check(what, result.ok);
}
collect("fixtures", "tests/fixtures/core3 installed (npm ci)", await fixture);

/**
 * The emulator package's tests (vitest projects emulator-unit and emulator-api),
 * started now in a child of their own and collected at the end: they need no
 * build, so they run beside every other phase. One API test file at a time
 * (EMULATOR_API_WORKERS), so the app's phases keep most of two cores. Their
 * output goes to a file, printed when they are collected; their answers are
 * recorded in CLERK_CONTRACT_DIR like every server's.
 */
function startEmulatorTests() {
  const report = "test-results/vitest-emulator.json";
  const log = "test-results/vitest-emulator.log";
  const out = openSync(log, "w");
  const started = Date.now();
  const child = spawn(
    "npx",
    [
      "vitest",
      "run",
      "--project",
      "emulator-unit",
      "--project",
      "emulator-api",
      "--reporter=default",
      "--reporter=json",
      `--outputFile=${report}`,
    ],
    {
      stdio: ["ignore", out, out],
      env: { ...process.env, EMULATOR_API_WORKERS: "1", ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}) },
    },
  );
  closeSync(out);
  const exited = new Promise((done) => {
    child.once("exit", () => done((Date.now() - started) / 1000));
    child.once("error", (error) => {
      console.error(error);
      done((Date.now() - started) / 1000);
    });
  });
  return { report, log, exited };
}
// The Node lines the packed emulator is started on besides this one (tarball.test.ts), fetched before its
// tests; the pinned one among them (the integration suite's, fetched again there from .cache/ at once).
for (const other of [...OTHER_NODES, PINNED_NODE]) {
  let fetched = false;
  try {
    fetched = Boolean(pinnedNode(other));
  } catch (error) {
    console.error(error);
  }
  check(`Node ${other.version} fetched and checked (scripts/pinned-node.mjs)`, fetched);
}
// The emulator's tests read Clerk's Core 3 SDKs from the fixture: they start once it is installed.
const emulatorTests = startEmulatorTests();

collect("type check", "type check (tsc --noEmit)", await typeCheck);
collect("lint", "lint (eslint, prettier --check)", await lint);
const checksSeconds = (Date.now() - checksStarted) / 1000;
const built = timed("build", () => check("build (remix build + server bundle)", run("npm", ["run", "build"])));

/** A Playwright report's tests of one status ("flaky": failed, then passed on its retry), by file, project and title. */
function playwrightTests(report, status) {
  const found = [];
  const walk = (suite) => {
    for (const child of suite.suites ?? []) walk(child);
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests)
        if (test.status === status) found.push(`${spec.file} [${test.projectName}] ${spec.title}`);
  };
  walk(report);
  return found;
}
let flaky = [];

/** One vitest project, its results added to the totals; on `node` (and it first on the PATH) if given. */
function vitestProject(project, node = null) {
  const file = `test-results/vitest-${project}.json`;
  const args = ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile=${file}`];
  if (node)
    run(node, ["node_modules/vitest/vitest.mjs", ...args], { PATH: `${dirname(node)}${delimiter}${process.env.PATH}` });
  else run("npx", ["vitest", ...args]);
  countVitestReport(file, project);
}

/** How long a vitest run took, from its JSON report: its start to the end of its last test file; null without one. */
function reportSeconds(file) {
  if (!existsSync(file)) return null;
  const report = JSON.parse(readFileSync(file, "utf8"));
  const ends = (report.testResults ?? []).map((result) => result.endTime).filter(Number.isFinite);
  return ends.length > 0 && Number.isFinite(report.startTime) ? (Math.max(...ends) - report.startTime) / 1000 : null;
}

const firstLine = (text) => (text ?? "").trim().split("\n")[0] || "no message";

/** A vitest JSON report's results, added to the totals (a missing report is one failure). */
function countVitestReport(file, project) {
  if (existsSync(file)) {
    const report = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += report.numPassedTests;
    // Each failed test by name; a file that failed without a failing test (an import or hook error)
    // counts once, a file whose tests failed by its tests.
    let brokenFiles = 0;
    for (const result of report.testResults ?? []) {
      const path = relative(process.cwd(), result.name);
      const failed = (result.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const test of failed) failures.push(`${path} ${test.fullName}`);
      if (failed.length === 0 && result.status === "failed") {
        brokenFiles += 1;
        failures.push(`${path} (the file itself: ${firstLine(result.message)})`);
      }
    }
    totals.failed += report.numFailedTests + brokenFiles;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  } else {
    check(`vitest report (${project})`, false);
  }
}

if (built) {
  timed("unit", () => vitestProject("unit"));
  // The built server over real HTTP runs on the Node the production image runs; the rest on this machine's.
  timed(`integration (Node ${PINNED_NODE.version})`, () => {
    let node = null;
    try {
      node = pinnedNode();
    } catch (error) {
      console.error(error);
    }
    if (check(`Node ${PINNED_NODE.version} fetched and checked (scripts/pinned-node.mjs)`, node !== null)) {
      vitestProject("integration", node);
    }
  });
  timed("firefox", () => vitestProject("firefox"));
  timed("e2e (Playwright)", () => run("npx", ["playwright", "test"], { CI: "1" }));
  if (existsSync("test-results/playwright.json")) {
    const report = JSON.parse(readFileSync("test-results/playwright.json", "utf8"));
    const { stats } = report;
    totals.passed += stats.expected + stats.flaky;
    totals.failed += stats.unexpected;
    totals.skipped += stats.skipped;
    flaky = playwrightTests(report, "flaky");
    failures.push(...playwrightTests(report, "unexpected"));
  } else {
    check("playwright report", false);
  }
}

// The emulator's tests, collected: their time is how long they ran beside the rest, not added to it. The
// phases above block this process's event loop (spawnSync), so the child's exit is only seen now: the time is
// read from their report (its start to its last file's end), else from that exit.
const exitSeconds = await emulatorTests.exited;
const emulatorSeconds = reportSeconds(emulatorTests.report) ?? exitSeconds;
process.stdout.write(`\n${readFileSync(emulatorTests.log, "utf8")}`);
countVitestReport(emulatorTests.report, "emulator-unit, emulator-api");
const alongside = [
  ["fixtures, type check and lint side by side", checksSeconds],
  ["emulator (beside the rest)", emulatorSeconds],
];

if (built) {
  const contract = timed("contract", () =>
    spawnSync("npx", ["vite-node", "scripts/check-contract.ts", contractDir], { encoding: "utf8" }),
  );
  // Its one-line summary is printed with the totals, below.
  summary = contract.stdout.split("\n").find((line) => line.startsWith("contract:")) ?? "contract: no report";
  process.stdout.write(contract.stdout.replace(`${summary}\n`, ""));
  process.stderr.write(contract.stderr.replace(/^npm warn .*\n/gm, ""));
  check("every Clerk API answer of the suite against Clerk's OpenAPI spec", contract.status === 0);
}

if (flaky.length > 0)
  console.log(`flaky (failed once, passed when run again): ${flaky.length}\n${flaky.map((t) => `  ${t}`).join("\n")}`);
if (summary) console.log(summary);
if (failures.length > 0) console.log(`failed: ${failures.length}\n${failures.map((f) => `  ${f}`).join("\n")}`);
const total = (Date.now() - suiteStarted) / 1000;
console.log(
  `phases: ${[...phases, ...alongside].map(([name, seconds]) => `${name} ${seconds.toFixed(0)} s`).join(", ")}; ${total.toFixed(0)} s in all`,
);

console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
