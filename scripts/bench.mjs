// `npm run bench`: compiles bench/run.ts (it shares helpers with the tests)
// and runs it. Not part of `npm test`; prints one table from one run.
import { copyFileSync } from "node:fs";
import { build } from "esbuild";

await build({
  entryPoints: ["bench/run.ts"],
  outfile: "build/bench.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
// The bundle reads Chromium's shared flags and finds the network guard beside itself (tests/support/).
for (const file of ["chromium-args.json", "network-guard.cjs"]) copyFileSync(`tests/support/${file}`, `build/${file}`);
await import(new URL("../build/bench.mjs", import.meta.url).href);
