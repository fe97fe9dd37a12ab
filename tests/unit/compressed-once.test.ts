import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gzipSync, gunzipSync } from "node:zlib";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compressedOnce } from "../../server/compressed-once";

// A folder of files, the build's compressed copies of some of them (scripts/precompress.mjs names
// them by the SHA-256 of the bytes they were made from), and the middleware over real HTTP.
let dir: string;
let server: Server;
let origin: string;
const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");
const BUILT = "console.log('built ahead');\n".repeat(40);
const NOT_BUILT = "console.log('nobody compressed me ahead');\n".repeat(40);
const CHANGED = "console.log('this file changed after the build');\n".repeat(40);
/** The build's copy: recognisable, so the test can tell it from one the server made. */
const MARKED = brotliCompressSync(Buffer.from(BUILT + "// "));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "teamwork-compressed-once-"));
  const files = join(dir, "files");
  const precompressed = join(dir, "precompressed");
  mkdirSync(files);
  mkdirSync(precompressed);
  writeFileSync(join(files, "built.js"), BUILT);
  writeFileSync(join(files, "not-built.js"), NOT_BUILT);
  writeFileSync(join(files, "changed.js"), CHANGED);
  writeFileSync(join(precompressed, `${sha256(BUILT)}.br`), MARKED);
  writeFileSync(join(precompressed, `${sha256(BUILT)}.gz`), gzipSync(BUILT));
  // What the build made of changed.js before it changed: named for those older bytes.
  writeFileSync(join(precompressed, `${sha256("an older version")}.br`), brotliCompressSync("an older version"));
  const app = express();
  app.use(compressedOnce(files, { cacheControl: "public, max-age=60", validators: false, precompressed }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function rawGet(path: string, encoding: string) {
  return new Promise<{ encoding: unknown; body: Buffer }>((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers: { "Accept-Encoding": encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the build's compressed copies (scripts/precompress.mjs)", () => {
  it("sends the build's copy of a file's own bytes, in either encoding", async () => {
    const br = await rawGet("/built.js", "br");
    expect(br.encoding).toBe("br");
    expect(br.body.equals(MARKED)).toBe(true);
    const gz = await rawGet("/built.js", "gzip");
    expect(gz.encoding).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(BUILT);
  });

  it("compresses a file the build has no copy of itself, and never sends a copy made from other bytes", async () => {
    for (const [path, text] of [
      ["/not-built.js", NOT_BUILT],
      ["/changed.js", CHANGED],
    ] as const) {
      const res = await rawGet(path, "br");
      expect(res.encoding).toBe("br");
      expect(brotliDecompressSync(res.body).toString()).toBe(text);
    }
  });
});
