import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLERK_SPECS_CACHE, readClerkSpec } from "../../contract/clerk-specs";

const FILE = "webhooks-2025-04-15.yml";
const text = readFileSync(resolve(import.meta.dirname, "../../contract/clerk-openapi", FILE), "utf8");
const kept = join(CLERK_SPECS_CACHE, `${FILE}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.json`);

describe("Clerk's spec files, parsed once and kept as JSON", () => {
  it("give the YAML's document, a fresh copy to each caller, kept under the YAML's hash", () => {
    const doc = readClerkSpec(FILE);
    expect(doc).toEqual(parse(text));
    (doc.components as Record<string, unknown>).schemas = {};
    expect(readClerkSpec(FILE)).toEqual(parse(text));
    expect(JSON.parse(readFileSync(kept, "utf8"))).toEqual(parse(text));
  });

  it("parse the YAML again when the kept copy cannot be read, and keep a good one", () => {
    readClerkSpec(FILE);
    writeFileSync(kept, '{"openapi": "3.0.0", "cut off');
    expect(readClerkSpec(FILE)).toEqual(parse(text));
    expect(JSON.parse(readFileSync(kept, "utf8"))).toEqual(parse(text));
  });
});
