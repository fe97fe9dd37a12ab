// The package.json a tarball holds: the repository's own, with publishConfig's main,
// types and exports in place of the ones that name the TypeScript sources (the
// workspace runs those), and without the fields only the repository uses.
// `npm pack` runs `apply` as the last step of prepack and `restore` as postpack
// (npm reads package.json from disk when it packs; it has no field for a packed
// manifest of its own, as pnpm's publishConfig is). While a pack runs, the workspace
// sees the packed manifest: the repository's tests pack a copy of the package
// (tests/integration/emulator-tarball.test.ts), never this folder.
//
//   node scripts/packed-manifest.mjs apply|restore
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = join(pkg, "package.json");
const saved = join(pkg, ".cache", "package.json.workspace");

const command = process.argv[2];
if (command === "apply") {
  // A pack that failed before its postpack left the packed manifest: the saved one is the repository's.
  if (!existsSync(saved)) {
    mkdirSync(dirname(saved), { recursive: true });
    copyFileSync(manifest, saved);
  }
  const {
    publishConfig,
    scripts: _scripts,
    devDependencies: _devDependencies,
    ...rest
  } = JSON.parse(readFileSync(saved, "utf8"));
  writeFileSync(manifest, `${JSON.stringify({ ...rest, ...publishConfig }, null, 2)}\n`);
} else if (command === "restore") {
  if (existsSync(saved)) {
    copyFileSync(saved, manifest);
    rmSync(saved);
  }
} else {
  console.error("Usage: node scripts/packed-manifest.mjs apply|restore");
  process.exit(2);
}
