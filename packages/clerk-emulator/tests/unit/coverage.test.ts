import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PACKAGE_ROOT, REPO_ROOT } from "../support/paths";

// GUIDE.md states the coverage figure: it must be the one
// `npm run emulator:coverage` prints for the code as it is, so an endpoint
// added or removed without the docs following fails here.
it("GUIDE.md quotes the coverage figures the script prints today", () => {
  const printed = execFileSync(
    join(REPO_ROOT, "node_modules/.bin/vite-node"),
    [join(PACKAGE_ROOT, "scripts/coverage.ts")],
    {
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  const figures = printed.split("\n").filter((line) => /^(Frontend API|Backend API|Core [23]):/.test(line));
  expect(figures).toHaveLength(4);
  const docs = readFileSync(join(PACKAGE_ROOT, "GUIDE.md"), "utf8");
  for (const line of figures) expect(docs).toContain(line);
});
