// Compresses, once per build, the files the server sends that never change while it runs: the
// fingerprinted build (public/build) and clerk-js's browser build (its npm package's
// `clerk.browser.js` and the chunks it loads). Brotli at quality 11 and gzip at level 9, the
// best either format gives, which a server cannot afford per request nor at a file's first
// request (quality 11 takes seconds of CPU for a Clerk screen's scripts): clerk-js and a sign-in's
// chunks go in about 28 KB less than at quality 5, which is what a phone on a slow network waits
// for before Clerk's card (docs/performance.md).
//
// Each result is named by the SHA-256 of the file it was made from (build/precompressed/<hash>.br,
// .gz), so the server (server/compressed-once.ts) can never send a compressed file for bytes it
// was not made from: it hashes the file it would send, and compresses it itself when no result
// has that name (a clerk-js updated after the build, a file added since). Results no file of this
// build names are removed. Run by `npm run build` after the other steps.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/** What the server sends compressed (server/compressed-once.ts: the same list, source maps aside). */
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".json", ".svg", ".map"]);
const PRECOMPRESSED_DIR = "build/precompressed";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && COMPRESSIBLE.has(extname(entry.name)) && !entry.name.endsWith(".map"))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/** clerk-js's browser build: the one file pages load and the chunks named for it. */
function clerkJsBrowserFiles() {
  const dir = dirname(createRequire(import.meta.url).resolve("@clerk/clerk-js"));
  return readdirSync(dir)
    .filter((name) => name === "clerk.browser.js" || /_clerk\.browser_[^/]*\.js$/.test(name))
    .map((name) => join(dir, name));
}

const contentName = (bytes) => createHash("sha256").update(bytes).digest("hex");

async function precompress() {
  const started = Date.now();
  mkdirSync(PRECOMPRESSED_DIR, { recursive: true });
  const made = new Set();
  let raw = 0;
  let brotliBytes = 0;
  // zlib's asynchronous calls run on libuv's thread pool: the files are compressed side by side.
  await Promise.all(
    [...filesUnder("public/build"), ...clerkJsBrowserFiles()].map(async (file) => {
      const bytes = readFileSync(file);
      const name = contentName(bytes);
      const [br, gz] = [join(PRECOMPRESSED_DIR, `${name}.br`), join(PRECOMPRESSED_DIR, `${name}.gz`)];
      made.add(`${name}.br`).add(`${name}.gz`);
      raw += bytes.length;
      if (!existsSync(br)) {
        const params = {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        };
        writeFileSync(br, await brotli(bytes, { params }));
      }
      if (!existsSync(gz)) writeFileSync(gz, await gzipped(bytes, { level: constants.Z_BEST_COMPRESSION }));
      brotliBytes += statSync(br).size;
    }),
  );
  for (const name of readdirSync(PRECOMPRESSED_DIR)) if (!made.has(name)) rmSync(join(PRECOMPRESSED_DIR, name));
  const kb = (n) => `${Math.round(n / 1024)} KB`;
  console.log(
    `Precompressed ${made.size / 2} files (${kb(raw)}; Brotli ${kb(brotliBytes)}) in ${Date.now() - started} ms.`,
  );
}

await precompress();
