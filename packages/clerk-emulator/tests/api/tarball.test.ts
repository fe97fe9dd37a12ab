import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_GUARD_PATH } from "../../testing";
import { spawnGroup, stopGroup, type GroupChild } from "../../testing/process-group";
import { PACKAGE_ROOT, REPO_ROOT } from "../support/paths";
import { OTHER_NODES, PINNED_NODE } from "../../../../scripts/pinned-node.mjs";

// The package as another project gets it: `npm pack` (its prepack builds dist/), the
// tarball installed with no network into a project of its own, `npx clerk-emulator` run
// there. Every node process here, npm's included, runs under the network guard.
//
// npm packs a copy of the package, never this folder: packing swaps the package.json the
// workspace resolves for the packed one (scripts/packed-manifest.mjs), and tests running
// beside this one would see it.
const run = promisify(execFile);
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
  CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR,
  NODE_ENV: "test",
} as const;

type Manifest = { dependencies: Record<string, string> };
type Packed = { filename: string; size: number; entryCount: number; files: { path: string }[] };

let stage = "";
let copyRoot = "";
let project = "";
let packed: Packed;
let emulator: GroupChild | null = null;
let url = "";
let secret = "";

/**
 * The lockfile entries of express and everything it needs, as the repository's
 * lockfile holds them: `npm ci` fetched those tarballs, so npm's cache has them. It
 * holds no registry metadata, though, so an offline install must be told the
 * versions: this lockfile does.
 */
function expressLockEntries(): Record<string, { version: string }> {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version: string; dependencies?: Record<string, string> }>;
  };
  // Node's lookup: the nearest node_modules folder up from the dependent's.
  const locate = (from: string, name: string): string => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
      const key = `${dir ? `${dir}/` : ""}node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (!dir) throw new Error(`${name} (needed by ${from}) is not in package-lock.json`);
    }
  };
  const entries: Record<string, { version: string }> = {};
  const express = locate("", "express");
  const wanted = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as Manifest).dependencies
    .express;
  // Another express there would leave npm needing the registry's metadata for the package's.
  if (lock.packages[express]!.version !== wanted) throw new Error(`the lockfile's express is not ${wanted}`);
  const todo = [express];
  for (let key = todo.pop(); key; key = todo.pop()) {
    if (entries[key]) continue;
    entries[key] = lock.packages[key]!;
    todo.push(...Object.keys(lock.packages[key]!.dependencies ?? {}).map((name) => locate(key!, name)));
  }
  return entries;
}

/** Until the emulator has printed the app's `.env` lines, or exits. */
function started(child: GroupChild): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no .env lines within 30 s:\n${child.output()}`)), 30_000);
    child.stdout?.on("data", () => {
      if (!/^CLERK_PROXY_URL=/m.test(child.output())) return;
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npx clerk-emulator exited (${code}):\n${child.output()}`));
    });
  });
}

beforeAll(async () => {
  stage = mkdtempSync(join(tmpdir(), "clerk-emulator-tarball-"));
  // The copy sits in the repository's shape, under its .cache/: beside its tsconfig (the
  // build's extends it), below its node_modules (esbuild and typescript build the package).
  // The project that installs the tarball is outside the repository, so nothing it lacks
  // is found there.
  mkdirSync(join(REPO_ROOT, ".cache"), { recursive: true });
  copyRoot = mkdtempSync(join(REPO_ROOT, ".cache", "tarball-"));
  const copy = join(copyRoot, "packages", "clerk-emulator");
  const skipped = ["node_modules", "dist", ".cache"].map((name) => join(PACKAGE_ROOT, name));
  cpSync(PACKAGE_ROOT, copy, {
    recursive: true,
    filter: (path) => !skipped.some((skip) => path === skip || path.startsWith(`${skip}${sep}`)),
  });
  cpSync(join(REPO_ROOT, "tsconfig.json"), join(copyRoot, "tsconfig.json"));

  const out = join(stage, "out");
  mkdirSync(out);
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", out], { cwd: copy, env });
  packed = (JSON.parse(stdout) as Packed[])[0]!;

  project = join(stage, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "project", private: true, type: "module" }));
  writeFileSync(
    join(project, "package-lock.json"),
    JSON.stringify({
      name: "project",
      lockfileVersion: 3,
      requires: true,
      packages: { "": {}, ...expressLockEntries() },
    }),
  );
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(out, packed.filename)], {
    cwd: project,
    env,
  });

  emulator = spawnGroup("npx", ["--offline", "clerk-emulator", "--port", "0", "--data-dir", "memory"], project, env);
  await started(emulator);
  url = /listening on (http:\S+)/.exec(emulator.output())![1]!;
  secret = /^CLERK_SECRET_KEY=(.+)$/m.exec(emulator.output())![1]!;
}, 240_000);

afterAll(async () => {
  await stopGroup(emulator);
  for (const dir of [stage, copyRoot]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the package installed from its tarball", () => {
  it("ships the built JavaScript, its types, the bin and the docs: no sources, tests or test helpers", () => {
    const paths = packed.files.map((file) => file.path);
    const outside = paths.filter(
      (path) =>
        !/^(bin\/clerk-emulator\.mjs|package\.json|README\.md|GUIDE\.md)$/.test(path) &&
        !/^dist\/.+\.(js|d\.ts)$/.test(path),
    );
    expect(outside).toEqual([]);
    expect(paths.filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["dist/index.js", "dist/cli.js", "dist/types/index.d.ts"]));
    // 194 kB packed when written; Clerk's OpenAPI files (3 MB) or the tests would show here.
    expect(packed.size).toBeLessThan(400_000);
  });

  it("installs with express alone, esbuild and the repository's test tooling left out", () => {
    const installed = (name: string) => existsSync(join(project, "node_modules", name, "package.json"));
    expect(installed("express")).toBe(true);
    expect(["esbuild", "typescript", "vitest", "@clerk/backend"].filter(installed)).toEqual([]);
  });

  it("answers `npx clerk-emulator --help` with its options", async () => {
    const { stdout } = await run("npx", ["--offline", "clerk-emulator", "--help"], { cwd: project, env });
    expect(stdout).toMatch(/^Usage: clerk-emulator \[options\][\s\S]*--port <n>/);
  });

  it("runs `npx clerk-emulator`: the Backend API answers its secret key with the seeded users", async () => {
    const response = await fetch(`${url}/api/v1/users?order_by=created_at`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    const emails = ((await response.json()) as { email_addresses: { email_address: string }[] }[]).flatMap((user) =>
      user.email_addresses.map((address) => address.email_address),
    );
    expect(emails).toEqual(expect.arrayContaining(["ada@example.com", "grace@example.com"]));
  });

  it("runs `npx clerk-emulator`: the Frontend API serves the instance's environment", async () => {
    const response = await fetch(`${url}/v1/environment`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ auth_config: { object: "auth_config" } });
  });

  // Each Node line the package's `engines` admits, beside this one: scripts/test.mjs fetches them into
  // .cache/node/ (scripts/pinned-node.mjs) before the tests start.
  it.each([...OTHER_NODES, PINNED_NODE].map((pin) => pin.version))(
    "starts on Node %s: the Frontend API serves the instance's environment",
    async (version) => {
      const node = join(REPO_ROOT, ".cache", "node", version, "bin", "node");
      if (!existsSync(node)) throw new Error(`${node} is missing: npm test fetches it (scripts/pinned-node.mjs)`);
      const bin = join(project, "node_modules", ".bin", "clerk-emulator");
      const other = spawnGroup(node, [bin, "--port", "0", "--data-dir", "memory"], project, env);
      try {
        await started(other);
        const { stdout } = await run(node, ["--version"]);
        expect(stdout.trim()).toBe(`v${version}`);
        const at = /listening on (http:\S+)/.exec(other.output())![1]!;
        const response = await fetch(`${at}/v1/environment`);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ auth_config: { object: "auth_config" } });
      } finally {
        await stopGroup(other);
      }
    },
    60_000,
  );

  it("gives a project importing it the built module, by its exports", async () => {
    const script = "const m = await import('clerk-emulator'); console.log(typeof m.createClerkEmulator);";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project, env });
    expect(stdout.trim()).toBe("function");
    const resolved = await run(
      process.execPath,
      ["--input-type=module", "-e", "console.log(import.meta.resolve('clerk-emulator'))"],
      { cwd: project, env },
    );
    expect(relative(project, new URL(resolved.stdout.trim()).pathname)).toBe(
      join("node_modules", "clerk-emulator", "dist", "index.js"),
    );
  });
});
