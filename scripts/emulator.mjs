// `npm run emulator`: the Clerk emulator on its own port (emulator/cli.ts, docs/emulator.md).
// Node 20 runs no TypeScript, so the emulator is bundled first with the esbuild that
// `npm ci` installs (a fraction of a second; packages stay external), into .cache/.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const outfile = join(root, ".cache", "clerk-emulator", `cli-${process.pid}.mjs`);

await build({
  entryPoints: [join(root, "emulator", "cli.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
const { main } = await import(pathToFileURL(outfile).href);
const { rmSync } = await import("node:fs");
// The module is loaded: its file is not needed any more (several emulators may start side by side).
rmSync(outfile, { force: true });
await main(process.argv.slice(2), process.env);
