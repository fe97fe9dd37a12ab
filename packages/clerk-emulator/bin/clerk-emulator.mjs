#!/usr/bin/env node
// `clerk-emulator` (`npm run emulator` at the repository's root, `npx clerk-emulator` where
// the package is installed from its tarball): the emulator on a port of its own
// (src/hosts/cli.ts; `--help` lists the options).
//
// Installed from the tarball, the package has no src/: it runs dist/cli.js, which
// `npm pack` built (scripts/build.mjs). In the repository, src/ is there and wins, so an
// edit runs at once and no stale dist/ is ever read: Node 20 runs no TypeScript, so the
// CLI is bundled first with esbuild (a fraction of a second; packages stay external) into
// .cache/ beside the package.
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(pkg, "src", "hosts", "cli.ts");

const { main } = existsSync(source) ? await bundledFromSource() : await import("../dist/cli.js");
await main(process.argv.slice(2), process.env);

async function bundledFromSource() {
  // esbuild is a dev dependency: imported only here, so an install of the tarball needs none.
  const { build } = await import("esbuild");
  const outfile = join(pkg, ".cache", `cli-${process.pid}.mjs`);
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  const cli = await import(pathToFileURL(outfile).href);
  // The module is loaded: its file is not needed any more (several emulators may start side by side).
  rmSync(outfile, { force: true });
  return cli;
}
