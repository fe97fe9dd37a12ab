// `npm run bench`: compiles bench/run.ts (it shares helpers with the tests)
// and runs it. Not part of `npm test`; prints one table from one run.
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

// Packages stay external, but for the emulator's: its exports are TypeScript, which Node does not load.
const bundleTheEmulator = {
  name: "bundle-the-emulator",
  setup(build) {
    build.onResolve({ filter: /^[^./~]/ }, ({ path }) =>
      path === "clerk-emulator" || path.startsWith("clerk-emulator/") ? undefined : { path, external: true },
    );
  },
};

await build({
  entryPoints: ["bench/run.ts"],
  outfile: "build/bench.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [bundleTheEmulator],
  logLevel: "warning",
});
// The bundle reads Chromium's shared flags and finds the network guard beside itself.
copyFileSync("tests/support/chromium-args.json", "build/chromium-args.json");
copyFileSync(
  createRequire(import.meta.url).resolve("clerk-emulator/testing/network-guard.cjs"),
  "build/network-guard.cjs",
);
await import(new URL("../build/bench.mjs", import.meta.url).href);
