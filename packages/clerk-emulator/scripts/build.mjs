// Builds the package for an install from its tarball (`npm pack` runs it as `prepack`):
// the emulator, its CLI and its standalone host as plain ESM JavaScript in dist/
// (express stays an import: it is the package's dependency), and their types in
// dist/types/. The repository itself runs the TypeScript sources (bin/clerk-emulator.mjs
// bundles them when src/ is there), so dist/ is only ever read from a tarball's install.
//
//   node packages/clerk-emulator/scripts/build.mjs
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(pkg, "dist");

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { index: "src/index.ts", cli: "src/hosts/cli.ts", standalone: "src/hosts/standalone.ts" },
  absWorkingDir: pkg,
  outdir: dist,
  bundle: true,
  // The three entries share most of the emulator: one copy of it, in a chunk they import.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(pkg, "tsconfig.build.json")], { stdio: "inherit" });
addJsExtensions(join(dist, "types"));

/**
 * tsc writes the sources' import paths as they are ("./http/faults"), which only a
 * bundler's resolution finds; a consumer on Node's own ("node16", "nodenext") needs the
 * file named, so each relative path gets its ".js" or "/index.js".
 */
function addJsExtensions(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      addJsExtensions(path);
      continue;
    }
    if (!name.endsWith(".d.ts")) continue;
    const text = readFileSync(path, "utf8").replace(
      /((?:from|import)\s*\(?\s*")(\.{1,2}\/[^"]*)(")/g,
      (whole, before, specifier, after) => {
        if (/\.js$/.test(specifier)) return whole;
        const target = join(dirname(path), specifier);
        if (existsSync(`${target}.d.ts`)) return `${before}${specifier}.js${after}`;
        if (existsSync(join(target, "index.d.ts"))) return `${before}${specifier}/index.js${after}`;
        throw new Error(`${path}: no declaration file for "${specifier}"`);
      },
    );
    writeFileSync(path, text);
  }
}
