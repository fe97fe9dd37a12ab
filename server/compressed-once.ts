import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { RequestHandler } from "express";

/**
 * Files that never change while the server runs (the fingerprinted build, clerk-js's package), sent
 * compressed from memory: each file is compressed once, at its first request, and kept.
 *
 * Compressed on the fly (server/compress.ts), every page load cost the server about 46 ms of CPU for
 * clerk-js and the chunks a Clerk screen needs alone (1.1 MB), at the very moment a phone's browser,
 * on the same machine in the audit, was parsing the page: the renderer's tasks stretched while its
 * thread waited for a core. And the documents' settings (Brotli quality 4, a 128 KB window, chosen
 * for per-response cost) leave big scripts larger than they need be. Once per file, a better setting
 * costs nothing per request: Brotli quality 5 with a 4 MB window sends those files in 299 KB instead
 * of 321 KB (62 ms, once); gzip level 9 for browsers without Brotli.
 *
 * `npm run build` compresses them better still (scripts/precompress.mjs: Brotli 11, gzip 9, about
 * 28 KB less again for a sign-in's scripts) into files named by the SHA-256 of what they were made
 * from. A file is hashed when it is first read, and sent from the build's result of that name when
 * there is one: never for other bytes than its own. Otherwise (no build's results, a clerk-js
 * updated since the build) it is compressed here as above.
 *
 * Memory is bounded by the two folders' files (those named by a request that exist: 180 files, about
 * 2.5 MB compressed at most); a path outside the folder, a file that does not exist, a type not worth
 * compressing or a browser that asks for neither encoding falls through to express.static.
 */
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".json", ".svg", ".map"]);
const BROTLI = promisify(brotliCompress);
const GZIP = promisify(gzip);

const compress = (raw: Buffer, encoding: "br" | "gzip") =>
  encoding === "br"
    ? BROTLI(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_LGWIN]: 22,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      })
    : GZIP(raw, { level: 9 });

type Kept = { body: Buffer; etag: string; lastModified: string };

/**
 * `cacheControl` as express.static would send it; `validators`: an ETag and Last-Modified, for
 * revalidation; `precompressed`: the folder of the build's compressed files (scripts/precompress.mjs).
 */
export function compressedOnce(
  dir: string,
  { cacheControl, validators, precompressed }: { cacheControl: string; validators: boolean; precompressed?: string },
): RequestHandler {
  const root = resolve(dir);
  const kept = new Map<string, Promise<Kept | null>>();

  /** The build's compressed copy of these bytes, if it made one. */
  const builtFor = async (raw: Buffer, encoding: "br" | "gzip") => {
    if (!precompressed) return null;
    const name = createHash("sha256").update(raw).digest("hex");
    return readFile(join(precompressed, `${name}.${encoding === "br" ? "br" : "gz"}`)).catch(() => null);
  };

  const compressed = (file: string, encoding: "br" | "gzip") => {
    const key = `${encoding} ${file}`;
    let entry = kept.get(key);
    if (!entry) {
      entry = (async () => {
        const info = await stat(file).catch(() => null);
        if (!info?.isFile()) return null;
        const raw = await readFile(file);
        const body = (await builtFor(raw, encoding)) ?? (await compress(raw, encoding));
        const version = `${info.size.toString(36)}-${info.mtimeMs.toString(36)}`;
        return { body, etag: `W/"${version}-${encoding}"`, lastModified: info.mtime.toUTCString() };
      })();
      // A file that is not there is not kept: a later request looks again (and express.static answers).
      void entry.then((found) => found ?? kept.delete(key)).catch(() => kept.delete(key));
      kept.set(key, entry);
    }
    return entry;
  };

  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    // Brotli whenever the browser takes it (browsers list gzip first), as the compression middleware does.
    const encoding = req.acceptsEncodings("br") ? "br" : req.acceptsEncodings("gzip") ? "gzip" : null;
    if (!encoding) return next();
    let path: string;
    try {
      path = decodeURIComponent(req.path);
    } catch {
      return next();
    }
    const file = join(root, path);
    if (path.includes("\0") || !file.startsWith(root + sep) || !COMPRESSIBLE.has(extname(file))) return next();
    compressed(file, encoding).then((found) => {
      if (!found) return next();
      res.setHeader("Cache-Control", cacheControl);
      res.setHeader("Vary", "Accept-Encoding");
      if (validators) {
        res.setHeader("ETag", found.etag);
        res.setHeader("Last-Modified", found.lastModified);
        if (req.fresh) return void res.status(304).end();
      }
      res.type(extname(file));
      res.setHeader("Content-Encoding", encoding);
      res.setHeader("Content-Length", found.body.length);
      res.status(200).end(req.method === "HEAD" ? undefined : found.body);
    }, next);
  };
}
