// Bundles server.ts (and the emulator it may mount) into build/server.js.
// Packages stay external: node_modules is there at run time.
import { build } from "esbuild";
import { pathToFileURL } from "node:url";

/** esbuild's options for the server bundle (scripts/dev-server.mjs watches the same). */
export const serverBundle = {
  entryPoints: ["server.ts"],
  outfile: "build/server.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) await build(serverBundle);
