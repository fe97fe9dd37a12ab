// Bundles server.ts (and the emulator it may mount) into build/server.js.
// Packages stay external: node_modules is there at run time. All but the
// emulator (clerk-emulator, the workspace's package): it is TypeScript, which
// Node cannot run, and a dev dependency the image prunes, so it is bundled in.
import { build } from "esbuild";
import { fileURLToPath, pathToFileURL } from "node:url";

/** esbuild's options for the server bundle (scripts/dev-server.mjs watches the same). */
export const serverBundle = {
  entryPoints: ["server.ts"],
  outfile: "build/server.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  // An alias is bundled even with packages external: esbuild resolves it as a path.
  alias: { "clerk-emulator": fileURLToPath(new URL("../packages/clerk-emulator/src/index.ts", import.meta.url)) },
  logLevel: "warning",
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) await build(serverBundle);
