import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { CLERK_JS_CHUNKS } from "./clerk-js-chunks";

/** Where the server sends its own copy of clerk-js, from the npm package (server/static-files.ts). */
export const OWN_CLERK_JS_PATH = "/_clerk-js";
/** clerk-js's browser build in that copy: the default CLERK_JS (server.ts). */
export const OWN_CLERK_JS = `${OWN_CLERK_JS_PATH}/clerk.browser.js`;

/** The folder of the installed @clerk/clerk-js's browser builds and their chunks. */
export function clerkJsDir(): string {
  return dirname(createRequire(import.meta.url).resolve("@clerk/clerk-js"));
}

let ownSuffix: string | null | undefined;

/**
 * What the names of clerk-js's chunks end with (`_clerk.browser_70f75e_5.128.0.js`: the build's
 * hash and version), so that a page can fetch the chunks of its Clerk screen before clerk-js asks
 * for them (app/components/clerk-js-early.tsx). Only for this server's own copy (`clerkJsUrl` is
 * OWN_CLERK_JS): a clerk-js from Clerk's CDN is whatever version the CDN resolves, whose chunks
 * are named for it. Null too when the installed clerk-js does not name its chunks so (another
 * major version): the page then lets clerk-js fetch them itself, as before.
 */
export function clerkJsChunkSuffix(clerkJsUrl: string | undefined): string | null {
  if (clerkJsUrl !== OWN_CLERK_JS) return null;
  ownSuffix ??= findSuffix(readdirSync(clerkJsDir()));
  return ownSuffix;
}

/** The suffix every chunk a screen needs is found under, in a listing of clerk-js's folder. */
export function findSuffix(files: readonly string[]): string | null {
  for (const file of files) {
    const suffix = /^ui-common(_clerk\.browser_[0-9a-f]+_[0-9][^/]*\.js)$/.exec(file)?.[1];
    if (suffix && CLERK_JS_CHUNKS.every((chunk) => files.includes(chunk + suffix))) return suffix;
  }
  return null;
}
