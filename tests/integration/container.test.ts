import { execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, keysModeEnv, ROOT } from "../support/server";
import { createTestKeyPair } from "../support/session";

// The Dockerfile cannot be built here (no registry for its base image), so
// this runs its steps in a fresh copy: npm ci, build, prune the dev
// dependencies, keep only what the image keeps, and start that as an
// unprivileged user. It proves the production tree runs without dev packages.
const work = mkdtempSync(join(tmpdir(), "teamwork-image-"));
chmodSync(work, 0o755);

afterAll(() => rmSync(work, { recursive: true, force: true }));

// As in the Dockerfile's build stage: NODE_ENV=production (vitest's "test"
// would make `remix build` emit development JSX), dev dependencies included
// for the build, pruned after it.
const run = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, {
    cwd,
    stdio: "pipe",
    env: { ...process.env, NODE_ENV: "production", CI: "1" },
    timeout: 240_000,
  });

describe("the container's steps", () => {
  it("npm ci, build, prune; the pruned image tree serves /healthz as an unprivileged user and exits 0 on SIGTERM", async () => {
    const source = join(work, "source");
    // The build context: the repository's files (.dockerignore leaves out the rest).
    for (const file of run(ROOT, "git", ["ls-files", "--cached", "--others", "--exclude-standard"])
      .toString()
      .split("\n")
      .filter(Boolean)) {
      mkdirSync(join(source, dirname(file)), { recursive: true });
      cpSync(join(ROOT, file), join(source, file));
    }
    run(source, "npm", ["ci", "--include=dev", "--no-audit", "--no-fund"]);
    run(source, "npm", ["run", "build"]);
    run(source, "npm", ["prune", "--omit=dev"]);

    // What the final stage copies, and nothing else.
    const image = join(work, "image");
    for (const part of ["package.json", "node_modules", "build", "public"]) {
      cpSync(join(source, part), join(image, part), { recursive: true });
    }
    rmSync(source, { recursive: true, force: true });
    expect(() => run(image, process.execPath, ["-e", "require.resolve('vitest')"])).toThrow();

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
