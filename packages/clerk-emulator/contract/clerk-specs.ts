import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";

/**
 * Clerk's OpenAPI files (contract/clerk-openapi/), parsed. Parsing the
 * APIs' 1.2 MB of YAML takes about 0.9 s of CPU on an idle machine and 3 to
 * 6 s on a loaded one, and every test file that checks an answer ran it again
 * in a process of its own (about a hundred per `npm test`). The parsed
 * document is kept as JSON, which reads in about 0.1 s, under the YAML
 * text's own hash: an edited spec is read afresh, and a stale copy cannot be
 * read. Only this checkout writes it (its own node_modules).
 */

const SPEC_DIR = resolve(import.meta.dirname, "clerk-openapi");
export const CLERK_SPECS_CACHE = resolve(import.meta.dirname, "../node_modules/.cache/clerk-openapi");

type Json = Record<string, unknown>;

/** One of Clerk's spec files (`bapi-2025-11-10.yml`), as a fresh object the caller may change. */
export function readClerkSpec(file: string): Json {
  const text = readFileSync(join(SPEC_DIR, file), "utf8");
  const cached = join(
    CLERK_SPECS_CACHE,
    `${file}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.json`,
  );
  try {
    return JSON.parse(readFileSync(cached, "utf8")) as Json;
  } catch {
    // Not parsed yet (or an unreadable copy): parse it, and keep it for the next process.
  }
  const doc = parse(text) as Json;
  try {
    mkdirSync(CLERK_SPECS_CACHE, { recursive: true });
    // Written aside and renamed, so a process reading at the same time sees all of it or none.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(doc));
    renameSync(partial, cached);
  } catch {
    // A read-only tree: every process parses the YAML, as before.
  }
  return doc;
}
