// The contract check over a whole test run: every Clerk API answer the
// emulator recorded under the given folder, checked against Clerk's spec.
// Prints one line (and each mismatch); exits 1 on any mismatch.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { formatMismatch, loadContract, readAnswers } from "clerk-emulator/contract";

function recordings(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? recordings(join(dir, entry.name))
      : entry.name.endsWith(".jsonl")
        ? [join(dir, entry.name)]
        : [],
  );
}

const dir = process.argv[2];
if (!dir) throw new Error("usage: check-contract <folder of recordings>");
const contract = loadContract();
let checked = 0;
const problems = new Map<string, number>();
for (const file of recordings(dir)) {
  for (const answer of readAnswers(file).answers) {
    checked += 1;
    const mismatch = contract.check(answer);
    if (mismatch) {
      const line = formatMismatch({ ...mismatch, answer: { ...mismatch.answer, test: null } });
      problems.set(line, (problems.get(line) ?? 0) + 1);
    }
  }
}
for (const [line, count] of problems) console.log(`  ${count} × ${line}`);
const mismatches = [...problems.values()].reduce((a, b) => a + b, 0);
console.log(`contract: ${checked} Clerk API answers checked against Clerk's OpenAPI spec, ${mismatches} mismatches`);
process.exit(mismatches === 0 ? 0 : 1);
