// Bundles server.ts (and the emulator it may mount) into build/server.js.
// Packages stay external: node_modules is there at run time.
import { build } from "esbuild";

await build({
  entryPoints: ["server.ts"],
  outfile: "build/server.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
