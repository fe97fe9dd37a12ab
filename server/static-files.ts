import { join } from "node:path";
import express, { type RequestHandler } from "express";
import { OWN_CLERK_JS_PATH, clerkJsDir } from "../app/lib/clerk/clerk-js-files.server";
import { compressedOnce } from "./compressed-once";

/**
 * The files the server sends as they are: the fingerprinted build (immutable
 * for a year, without validators; under `npm run dev`, checked each time, as
 * its files are rewritten in place), clerk-js from its npm package (it lazy-loads chunks
 * beside itself), and the other public files.
 */
export function staticFiles(root: string, { dev = false } = {}): RequestHandler {
  const router = express.Router();
  // Fingerprinted files never change under their name, so nobody revalidates them: no validators.
  const build = dev ? { maxAge: 0 } : { immutable: true, maxAge: "1y", etag: false, lastModified: false };
  // A miss under /build is a plain 404, never a Remix document: the build's paths skip the
  // document-only headers (server/security-headers.ts), so no page may be rendered under them.
  // Compressed once and kept (server/compressed-once.ts), where the files cannot change under the server.
  // With the build's own compressed copies (scripts/precompress.mjs), where it made them.
  const precompressed = dev ? undefined : join(root, "build", "precompressed");
  if (!dev) {
    const immutable = { cacheControl: "public, max-age=31536000, immutable", validators: false, precompressed };
    router.use("/build", compressedOnce(join(root, "public", "build"), immutable));
  }
  router.use("/build", express.static(join(root, "public", "build"), { ...build, index: false, fallthrough: false }));
  router.use(
    OWN_CLERK_JS_PATH,
    compressedOnce(clerkJsDir(), { cacheControl: "public, max-age=3600", validators: true, precompressed }),
  );
  router.use(OWN_CLERK_JS_PATH, express.static(clerkJsDir(), { maxAge: "1h", index: false, fallthrough: false }));
  router.use(express.static(join(root, "public"), { maxAge: "1h", index: false }));
  // Only paths under those two or that name a file go looking on disk. The
  // rest pass by without entering the router: a router that ends unmatched
  // hands on after a turn of the event loop (setImmediate), in which Node
  // reads 64 KB more of any body that is coming.
  return (req, res, next) => (FILE_PATH.test(req.path) ? router(req, res, next) : next());
}

const FILE_PATH = /^\/(build|_clerk-js)(\/|$)|\.[A-Za-z0-9]+$/;
