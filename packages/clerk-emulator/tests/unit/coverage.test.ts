import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

// docs/emulator.md states the coverage figure: it must be the one
// `npm run emulator:coverage` prints for the code as it is, so an endpoint
// added or removed without the docs following fails here.
it("docs/emulator.md quotes the coverage figures the script prints today", () => {
  const printed = execFileSync("node_modules/.bin/vite-node", ["scripts/emulator-coverage.ts"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  const figures = printed.split("\n").filter((line) => /^(Frontend API|Backend API|Core [23]):/.test(line));
  expect(figures).toHaveLength(4);
  const docs = readFileSync("docs/emulator.md", "utf8");
  for (const line of figures) expect(docs).toContain(line);
});
