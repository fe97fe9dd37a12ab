import { execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, keysModeEnv, ROOT } from "../support/server";
import { createTestKeyPair } from "../support/session";

// The Dockerfile cannot be built here (no registry for its base image), so
// this runs its last steps on the tree `npm test` works in: the installed
// dependencies (.ci/run's own `npm ci` proves the lockfile installs) pruned of
// dev packages, the build `npm test` made, and only what the image keeps,
// started as an unprivileged user. It proves the production tree runs
// without dev packages.
const work = mkdtempSync(join(tmpdir(), "teamwork-image-"));
chmodSync(work, 0o755);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, {
    cwd,
    stdio: "pipe",
    env: { ...process.env, NODE_ENV: "production", CI: "1" },
    timeout: 240_000,
  });

describe("the container's steps", () => {
  it("prune; the pruned image tree serves /healthz as an unprivileged user and exits 0 on SIGTERM", async () => {
    // What the final stage copies, and nothing else: package.json, the pruned
    // node_modules, build and public. The installed tree is hard-linked, not
    // copied (npm prune only unlinks), except the hidden lockfile npm rewrites.
    const image = join(work, "image");
    mkdirSync(image);
    for (const file of ["package.json", "package-lock.json"]) cpSync(join(ROOT, file), join(image, file));
    run(ROOT, "cp", ["-al", join(ROOT, "node_modules"), join(image, "node_modules")]);
    const hiddenLock = join(image, "node_modules", ".package-lock.json");
    rmSync(hiddenLock);
    cpSync(join(ROOT, "node_modules", ".package-lock.json"), hiddenLock);
    run(image, "npm", ["prune", "--omit=dev", "--no-audit", "--no-fund"]);
    rmSync(join(image, "package-lock.json"));
    for (const part of ["build", "public"]) cpSync(join(ROOT, part), join(image, part), { recursive: true });
    expect(() => run(image, process.execPath, ["-e", "require.resolve('vitest')"])).toThrow();
    // The tree the suite itself uses is untouched.
    expect(() => run(ROOT, process.execPath, ["-e", "require.resolve('vitest')"])).not.toThrow();

    const port = await freePort();
    const asRoot = process.getuid?.() === 0;
    // Like the image's USER: not root (nobody here), with nothing to write.
    const [command, args] = asRoot
      ? ["setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "build/server.js"]]
      : [process.execPath, ["build/server.js"]];
    const child = spawn(command, args as string[], {
      cwd: image,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        ...keysModeEnv(createTestKeyPair().publicKeyPem),
        PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    try {
      let healthy = false;
      for (let i = 0; i < 100 && !healthy && child.exitCode === null; i++) {
        healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, output).toBe(true);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status, output).toBe(200);
      expect(await page.text()).toContain("Your organizations, in one place.");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 360_000);
});
