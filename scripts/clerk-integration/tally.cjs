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

/** The lines of a spec file's `test.afterAll(…)` blocks, as [first, last] pairs (braces counted). */
function afterAllLines(file) {
  const path = join(work, "integration/tests", file);
  if (!existsSync(path)) return [];
  const source = readFileSync(path, "utf8");
  const lineAt = (index) => source.slice(0, index).split("\n").length;
  const blocks = [];
  for (const m of source.matchAll(/\btest\.afterAll\(/g)) {
    let depth = 0;
    let end = source.length;
    for (let i = source.indexOf("{", m.index); i < source.length; i++) {
      if (source[i] === "{") depth++;
      else if (source[i] === "}" && --depth === 0) {
        end = i;
        break;
      }
    }
    blocks.push([lineAt(m.index), lineAt(end)]);
  }
  return blocks;
}

/**
 * A failed test whose every error comes from its describe's afterAll (the deepest frame in the spec file
 * is inside a `test.afterAll` block; errors with no frame at all are the details Clerk's client logs with
 * them): that error's first line. Null when anything in the test itself failed.
 */
function cleanUpFailure(file, result) {
  const blocks = afterAllLines(file);
  const frame = new RegExp(`integration/tests/${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+):`, "g");
  const framed = (result?.errors ?? []).map((e) => [...clean(e.message ?? "").matchAll(frame)].at(-1));
  if (blocks.length === 0 || !framed.some(Boolean)) return null;
  const inAfterAll = (m) => blocks.some(([a, b]) => Number(m[1]) >= a && Number(m[1]) <= b);
  if (!framed.filter(Boolean).every(inAfterAll)) return null;
  const firstLine = (e) =>
    (
      clean(e?.message ?? "")
        .split("\n")
        .find((l) => l.trim()) ?? ""
    ).trim();
  const details = result.errors.filter((e, i) => !framed[i]).map(firstLine);
  return [firstLine(result.errors.find((e, i) => framed[i])), ...details].join(" ");
}

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
        const cleanUp = state === "failed" ? cleanUpFailure(file, result) : null;
        if (state === "passed") row.passed++;
        else if (state === "skipped") row.skipped++;
        else if (cleanUp) {
          // Its steps passed; Playwright charges a serial describe's failed afterAll to its last test.
          row.passed++;
          row.lines.push(`✓ ${spec.title}: passed; its describe's afterAll failed: ${cleanUp}`.slice(0, 300));
        } else {
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
