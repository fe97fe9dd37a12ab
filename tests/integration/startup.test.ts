import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { emulatorCalls } from "../support/emulator-api";
import { stopGroup } from "../support/process-group";
import { freePort, keysModeEnv, ROOT, runServerExpectingExit, startServer } from "../support/server";
import { createTestKeyPair, mintSessionToken, sessionCookieHeader } from "../support/session";

const pk = `pk_live_${Buffer.from("clerk.teamwork.invalid$").toString("base64")}`;

describe("start-up", () => {
  it("stops with one line naming a missing variable", async () => {
    const { code, output } = await runServerExpectingExit({ CLERK_PUBLISHABLE_KEY: pk, CLERK_SECRET_KEY: "sk_live_x" });
    expect(code).toBe(1);
    expect(output.trim().split("\n").at(-1)).toBe("Invalid environment: SESSION_SECRET is required but not set");
  });

  it("with Clerk keys, stops with one line naming PUBLIC_ORIGIN when it is missing", async () => {
    const { code, output } = await runServerExpectingExit({
      CLERK_PUBLISHABLE_KEY: pk,
      CLERK_SECRET_KEY: "sk_live_x",
      SESSION_SECRET: "s".repeat(40),
      TRUST_PROXY: "1",
    });
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toEqual([
      "Invalid environment: PUBLIC_ORIGIN is required when Clerk keys are set (production)",
    ]);
  });

  it("stops with one line naming a malformed variable", async () => {
    const { code, output } = await runServerExpectingExit({
      CLERK_PUBLISHABLE_KEY: "pk_live_%%%",
      CLERK_SECRET_KEY: "sk_live_x",
      SESSION_SECRET: "s".repeat(40),
    });
    expect(code).toBe(1);
    expect(output).toMatch(/Invalid environment: CLERK_PUBLISHABLE_KEY must look like pk_live_/);
  });

  it("without Clerk's keys, stops with one line when local mode is refused (the image's LOCAL_MODE=refuse)", async () => {
    const { code, output } = await runServerExpectingExit({ LOCAL_MODE: "refuse", CLERK_EMULATOR_DATA_DIR: "memory" });
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toEqual([
      "Invalid environment: CLERK_PUBLISHABLE_KEY is required but not set (LOCAL_MODE=refuse: set Clerk's keys, or LOCAL_MODE=allow to run the bundled Clerk emulator on loopback)",
    ]);
    // The image refuses it unless told otherwise; npm start (no LOCAL_MODE) runs it, as the README says.
    expect(readFileSync(join(ROOT, "Dockerfile"), "utf8")).toMatch(/^ENV LOCAL_MODE=refuse$/m);
    const typo = await runServerExpectingExit({ LOCAL_MODE: "yes", CLERK_EMULATOR_DATA_DIR: "memory" });
    expect([typo.code, typo.output.trim()]).toEqual([1, "Invalid environment: LOCAL_MODE must be allow or refuse"]);
  });

  it("stops with one line when build/ holds npm run dev's development build", async () => {
    const app = mkdtempSync(join(tmpdir(), "teamwork-dev-build-"));
    try {
      mkdirSync(join(app, "build"));
      symlinkSync(join(ROOT, "node_modules"), join(app, "node_modules"));
      copyFileSync(join(ROOT, "build", "server.js"), join(app, "build", "server.js"));
      const index = readFileSync(join(ROOT, "build", "index.js"), "utf8");
      expect(index).toMatch(/\bmode = "production"/);
      writeFileSync(join(app, "build", "index.js"), index.replace(/\bmode = "production"/, 'mode = "development"'));
      const { code, output } = await runServerExpectingExit({ CLERK_EMULATOR_DATA_DIR: "memory" }, app);
      expect(code).toBe(1);
      expect(output.trim().split("\n").at(-1)).toBe(
        "build/ holds a development build (npm run dev's): run `npm run build` first.",
      );
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("in local mode says so, listens on loopback only, and mounts the emulator", async () => {
    const server = await startServer({ HOST: "0.0.0.0" });
    try {
      expect(server.output()).toContain("LOCAL MODE on the bundled Clerk emulator");
      expect(server.output()).toContain("ada@example.com");
      const env = await fetch(`${server.origin}/__clerk/v1/environment`);
      expect(env.headers.get("content-type")).toBe("application/json");
      expect((await env.json()).auth_config.object).toBe("auth_config");
      // Bound to 127.0.0.1 even though HOST asked for every interface.
      const { stdout } = await import("node:child_process").then((cp) =>
        cp.execFileSync
          ? { stdout: cp.execFileSync("ss", ["-ltnH", `sport = :${server.port}`]).toString() }
          : { stdout: "" },
      );
      expect(stdout).toContain(`127.0.0.1:${server.port}`);
      expect(stdout).not.toContain(`0.0.0.0:${server.port}`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("finishes an open request on SIGTERM, then exits 0", async () => {
    const server = await startServer({ CLERK_EMULATOR_DATA_DIR: "memory" });
    try {
      const slow = fetch(`${server.origin}/__clerk/_emulator/faults`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ endpoint: "fapi GET /v1/environment", mode: "slow", delayMs: 800 }),
      }).then(() => fetch(`${server.origin}/__clerk/v1/environment`));
      // SIGTERM once the slow call is in the server (the emulator has counted it).
      await vi.waitFor(
        async () => {
          const calls = await emulatorCalls(server.origin);
          expect(calls["fapi GET /v1/environment"]).toBe(1);
        },
        { timeout: 5_000, interval: 20 },
      );
      const code = server.stop("SIGTERM");
      const res = await slow;
      expect(res.status).toBe(200);
      expect(await code).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it("takes CLERK_JWT_KEY on one line, as npm run emulator prints it, or with \\n escapes, and verifies sessions with it", async () => {
    const keys = createTestKeyPair();
    const oneLine = keys.publicKeyPem.replace(/\n/g, "");
    const escaped = keys.publicKeyPem.replace(/\n/g, "\\n");
    const servers = await Promise.all(
      [oneLine, escaped].map((key) => startServer({ ...keysModeEnv(keys.publicKeyPem), CLERK_JWT_KEY: key })),
    );
    try {
      for (const server of servers) {
        expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
        const { token, iat } = mintSessionToken({
          privateKey: keys.privateKey,
          userId: "user_1",
          name: "Ada Lovelace",
        });
        const page = await fetch(`${server.origin}/user`, { headers: { Cookie: sessionCookieHeader(token, iat) } });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('aria-label="Account menu for Ada Lovelace"');
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it("stops with one line naming CLERK_JWT_KEY when it holds no public key", async () => {
    const { code, output } = await runServerExpectingExit({
      ...keysModeEnv(createTestKeyPair().publicKeyPem),
      CLERK_JWT_KEY: "-----BEGIN PUBLIC KEY-----not base64-----END PUBLIC KEY-----",
      PUBLIC_ORIGIN: "http://127.0.0.1:9",
    });
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toEqual([
      "Invalid environment: CLERK_JWT_KEY must be a PEM block (-----BEGIN PUBLIC KEY-----…) holding Clerk's RSA public key (Clerk Dashboard → API keys → JWT public key)",
    ]);
  });

  it("/readyz is 200 with a JWT key, and 503 naming the part (never a secret) when Clerk's JWKS cannot be read", async () => {
    const { CLERK_JWT_KEY: _key, ...withoutKey } = keysModeEnv(createTestKeyPair().publicKeyPem);
    const [withKey, jwksOnly] = await Promise.all([
      startServer({ ...keysModeEnv(createTestKeyPair().publicKeyPem), LOG_LEVEL: "silent" }),
      // CLERK_API_URL points at a closed port: the JWKS cannot be fetched.
      startServer({ ...withoutKey, LOG_LEVEL: "silent" }),
    ]);
    try {
      const ready = await fetch(`${withKey.origin}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, "ready\n"]);
      expect((await fetch(`${withKey.origin}/healthz`)).status).toBe(200);

      const notReady = await fetch(`${jwksOnly.origin}/readyz`);
      const body = await notReady.text();
      expect([notReady.status, body]).toEqual([503, "not ready: clerk-jwks\n"]);
      expect(notReady.headers.get("cache-control")).toBe("no-store");
      // Liveness does not depend on Clerk.
      expect((await fetch(`${jwksOnly.origin}/healthz`)).status).toBe(200);
    } finally {
      await Promise.all([withKey.stop(), jwksOnly.stop()]);
    }
  });

  /**
   * The memory limits `npm start`'s server reports (its heap limit in MB, its malloc arenas), with
   * `nodeOptions` as NODE_OPTIONS and `arenas` as MALLOC_ARENA_MAX (undefined: unset).
   */
  async function memoryOfNpmStart(
    nodeOptions: string | undefined,
    arenas?: string,
  ): Promise<{ heap_limit_mb: number; malloc_arena_max: string | null }> {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production" as const,
      ...keysModeEnv(createTestKeyPair().publicKeyPem),
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
      ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }),
      ...(arenas === undefined ? {} : { MALLOC_ARENA_MAX: arenas }),
    };
    // Its own process group (npm, its shell, the server), stopped whole.
    const child = spawn("npm", ["start", "--silent"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const line = output.split("\n").find((l) => l.includes('"component":"memory"'));
        if (line) return JSON.parse(line) as { heap_limit_mb: number; malloc_arena_max: string | null };
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no heap limit reported:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await stopGroup(child);
    }
  }

  it("npm start caps the heap (768 MB of old space, 16 MB semi-spaces) and malloc's arenas (2) as the image does, and the environment overrides both", async () => {
    const [cappedStart, overriddenStart] = await Promise.all([
      memoryOfNpmStart(undefined),
      memoryOfNpmStart("--max-old-space-size=128", "4"),
    ]);
    const [capped, overridden] = [cappedStart.heap_limit_mb, overriddenStart.heap_limit_mb];
    expect(cappedStart.malloc_arena_max).toBe("2");
    expect(overriddenStart.malloc_arena_max).toBe("4");
    // The limit V8 reports adds the young generation (three semi-spaces) to the old space;
    // without the semi-space cap, Node 26's would be 3 × 32 MB.
    expect(capped).toBeGreaterThanOrEqual(768);
    expect(capped).toBeLessThanOrEqual(768 + 3 * 16);
    // The image's default is npm start's.
    const npmStart = /NODE_OPTIONS:-([^}"]+)\}/.exec(
      (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start,
    )?.[1];
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    const image = /NODE_OPTIONS="([^"]+)"/.exec(dockerfile)?.[1];
    expect(npmStart).toBe("--max-old-space-size=768 --max-semi-space-size=16");
    expect(image).toBe(npmStart);
    expect(dockerfile).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    expect(overridden).toBeGreaterThanOrEqual(128);
    expect(overridden).toBeLessThan(256);
  });
});
