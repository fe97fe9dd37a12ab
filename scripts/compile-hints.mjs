// Marks the scripts every page runs as it starts (the client entry, the root
// route and the chunks they import) with V8's explicit compile hint,
// `//# allFunctionsCalledOnLoad` (Chrome 136 and later; other browsers read a
// comment). V8 then compiles all of their functions while the file streams in,
// on a background thread, instead of pre-parsing them and compiling each on the
// main thread at its first call: React DOM's CommonJS factory alone is one such
// call. In Chromium at the phone audit's settings this took module evaluation
// from about 170 to 70 ms of main-thread time (docs/performance.md, "The Lighthouse audit").
// Run by `npm run build` after `remix build`; reads Remix's esbuild metafile.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const HINT = "//# allFunctionsCalledOnLoad\n";
/** The entry points whose static imports every document loads. */
const EVERY_PAGE = new Set(["app/entry.client.tsx", "browser-route-module:root.tsx?browser"]);

/** The output files every page loads: the entry, the root route and what they import statically. */
export function everyPageScripts(metafile) {
  const { outputs } = metafile;
  const pending = Object.keys(outputs).filter((file) => EVERY_PAGE.has(outputs[file].entryPoint));
  if (pending.length !== EVERY_PAGE.size)
    throw new Error("compile hints: the client entry or the root route is missing");
  const files = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file) || !file.endsWith(".js")) continue;
    files.add(file);
    for (const { path, kind } of outputs[file].imports ?? []) if (kind === "import-statement") pending.push(path);
  }
  return [...files];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = everyPageScripts(JSON.parse(readFileSync("build/metafile.js.json", "utf8")));
  for (const file of files) {
    const code = readFileSync(file, "utf8");
    if (!code.startsWith(HINT)) writeFileSync(file, HINT + code);
  }
  console.log(`compile hints: ${files.length} scripts every page runs at start`);
}
