// `npm run bench`: compiles bench/run.ts (it shares helpers with the tests)
// and runs it. Not part of `npm test`; prints one table from one run.
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
await import(new URL("../build/bench.mjs", import.meta.url).href);
