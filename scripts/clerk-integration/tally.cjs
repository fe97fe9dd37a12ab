// The run's tally, file by file: passed / failed / skipped from each group's Playwright JSON report,
// each failure's first line, and the describes that did not run with what they need.
//   node scripts/clerk-integration/tally.cjs <work dir>
const { existsSync, readFileSync, readdirSync } = require("node:fs");
const { join } = require("node:path");

const work = process.argv[2];
const plan = JSON.parse(readFileSync(join(work, "plan.json"), "utf8"));
const tally = new Map();
const rowOf = (file) => {
  if (!tally.has(file)) tally.set(file, { passed: 0, failed: 0, skipped: 0, lines: [] });
  return tally.get(file);
};
const clean = (text) => text.replace(/\u001b\[[0-9;]*m/g, "");
const errors = [];

const groupsDir = join(work, "groups");
for (const name of existsSync(groupsDir) ? readdirSync(groupsDir).sort() : []) {
  const status = JSON.parse(readFileSync(join(groupsDir, name, "status.json"), "utf8"));
  const where = `${status.app} on ${status.env}`;
  if (!status.ran) {
    for (const file of status.files) rowOf(file).lines.push(`- not run (${where}): needs ${status.missing.join("; ")}`);
    continue;
  }
  if (status.missing.length > 0)
    for (const file of status.files) rowOf(file).lines.push(`~ ran on ${where} without ${status.missing.join("; ")}`);
  // A spec written for an app this harness does not have (a Next.js app), run on this group's app.
  for (const line of status.standsInFor ?? []) {
    const [file, app] = line.split(": ");
    rowOf(file).lines.push(`~ ran on ${status.app}, standing in for ${app}`);
  }
  const reportFile = join(groupsDir, name, "results.json");
  if (!existsSync(reportFile)) {
    errors.push(`${where}: no report (${status.error ?? "Playwright did not run"})`);
    continue;
  }
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  const walk = (suite, file) => {
    for (const s of suite.suites ?? []) walk(s, file);
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        if (t.projectName !== "chromium") continue;
        const row = rowOf(file);
        const result = t.results.at(-1);
        const state = result?.status ?? "skipped";
        if (state === "passed") row.passed++;
        else if (state === "skipped") row.skipped++;
        else {
          row.failed++;
          const error = clean(result?.error?.message ?? state);
          row.lines.push(`x ${spec.title}: ${(error.split("\n").find((l) => l.trim()) ?? "").trim()}`.slice(0, 300));
        }
      }
    }
  };
  for (const suite of report.suites ?? []) walk(suite, suite.file);
  for (const e of report.errors ?? []) errors.push(`${where}: ${clean(e.message ?? "").split("\n")[0]}`);
}
for (const n of plan.notRun) rowOf(n.file).lines.push(`- not run: "${n.title}" needs ${n.needs.join("; ")}`);

let totals = { passed: 0, failed: 0, skipped: 0 };
for (const [file, row] of [...tally].sort()) {
  console.log(`${file}: ${row.passed} passed / ${row.failed} failed / ${row.skipped} skipped`);
  for (const line of row.lines) console.log(`    ${line}`);
  for (const k of Object.keys(totals)) totals[k] += row[k];
}
for (const e of errors) console.log(`error: ${e}`);
console.log(`all: ${totals.passed} passed / ${totals.failed} failed / ${totals.skipped} skipped`);
