#!/usr/bin/env node
// `clerk-emulator` (`npm run emulator` at the repository's root): the emulator on a port of
// its own (src/hosts/cli.ts; `--help` lists the options). Node 20 runs no TypeScript, so the
// CLI is bundled first with esbuild (a fraction of a second; packages stay external) into
// .cache/ beside the package.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const outfile = join(pkg, ".cache", `cli-${process.pid}.mjs`);

await build({
  entryPoints: [join(pkg, "src", "hosts", "cli.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
const { main } = await import(pathToFileURL(outfile).href);
// The module is loaded: its file is not needed any more (several emulators may start side by side).
rmSync(outfile, { force: true });
await main(process.argv.slice(2), process.env);
