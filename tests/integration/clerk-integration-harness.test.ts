import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClerkClient } from "@clerk/backend";
import { NETWORK_GUARD_PATH, patchInstance, startInProcessEmulator, type GroupChild } from "clerk-emulator/testing";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clerkProxy } from "../../scripts/clerk-integration/clerk-proxy";
import { EMULATOR_BIN, emulatorOptions, groupCommand } from "../../scripts/clerk-integration/emulator.mjs";
import { ENVS, envSettings } from "../../scripts/clerk-integration/envs.mjs";
import {
  APPS,
  describesOf,
  inboxTests,
  internetTests,
  NEXT_FILES,
  OAUTH_PROVIDER,
  oauthProviderTests,
  screenshotTests,
  taskUrlsOf,
} from "../../scripts/clerk-integration/plan.mjs";
import { spawnGroup, stopGroup } from "../support/process-group";
import { freePort, ROOT } from "../support/server";

// scripts/clerk-integration.sh runs Clerk's own specs against the emulator; it needs Clerk's suite and the
// npm registry, so npm test never runs it. What keeps it from breaking unseen: every file and command it
// names is here, and the emulator, started with the very command line the harness builds
// (scripts/clerk-integration/emulator.mjs) behind the very Vite proxy rule its apps use
// (scripts/clerk-integration/clerk-proxy.ts, in a real Vite dev server), starts and answers.
const SCRIPT = join(ROOT, "scripts/clerk-integration.sh");
const HERE = join(ROOT, "scripts/clerk-integration");
const script = readFileSync(SCRIPT, "utf8");

describe("scripts/clerk-integration.sh's pieces", () => {
  it("is a bash script bash can parse", () => {
    const parsed = spawnSync("bash", ["-n", SCRIPT], { encoding: "utf8" });
    expect(parsed.stderr).toBe("");
    expect(parsed.status).toBe(0);
  });

  it("names only files that exist: its helpers, the project's Chromium flags, the emulator", () => {
    const named = [
      ...[...script.matchAll(/"\$HERE\/([\w.-]+)"/g)].map((m) => join(HERE, m[1]!)),
      ...[...script.matchAll(/"\$ROOT\/([\w./-]+)"/g)].map((m) => join(ROOT, m[1]!)),
    ];
    expect(named.map((p) => p.slice(ROOT.length + 1))).toEqual(
      expect.arrayContaining([
        "scripts/clerk-integration/plan.mjs",
        "scripts/clerk-integration/emulator.mjs",
        "scripts/clerk-integration/edit.cjs",
        "scripts/clerk-integration/tally.cjs",
        "scripts/clerk-integration/instance-keys.cjs",
        "scripts/clerk-integration/playwright.emulator.config.ts",
        "scripts/clerk-integration/clerk-proxy.ts",
        "tests/support/chromium-args.json",
      ]),
    );
    for (const path of named) expect(existsSync(path), path).toBe(true);
    expect(existsSync(join(ROOT, EMULATOR_BIN))).toBe(true);
    expect(JSON.parse(readFileSync(join(ROOT, "tests/support/chromium-args.json"), "utf8"))).toContain("--no-sandbox");
  });

  it("lays a Vite config with the emulator's proxy rule over each app it runs", () => {
    expect(APPS).toEqual(["react-vite", "react-router-node"]);
    for (const app of APPS) {
      const config = readFileSync(join(HERE, app, "vite.config.ts"), "utf8");
      expect(config).toContain('from "./clerk-proxy"');
      expect(config).toContain("proxy: clerkProxy(process.env.CLERK_EMULATOR_URL!)");
    }
    // The React Router app's routes: each file its routes.ts names is laid over the template too.
    const routes = readFileSync(join(HERE, "react-router-node/app/routes.ts"), "utf8");
    const files = [...routes.matchAll(/"(routes\/[\w-]+\.tsx)"/g)].map((m) => m[1]!);
    const own = readdirSync(join(HERE, "react-router-node/app/routes")).map((f) => `routes/${f}`);
    // sign-in.tsx is the template's own (sign-up.tsx is laid over it, with unsafeMetadata; protected.tsx,
    // with <UserProfile/> only while signed in).
    expect(files.filter((f) => !own.includes(f)).sort()).toEqual(["routes/sign-in.tsx"]);
  });

  it("places a spec as Clerk's presets do: a pattern's app and env, else the family its tag names", () => {
    const runningApps = [
      { id: "react.vite.withEmailCodes", env: "withEmailCodes" },
      { id: "react.vite.withLegalConsent", env: "withLegalConsent" },
      { id: "react-router.node", env: "withEmailCodes" },
      { id: "vue.vite", env: "withCustomRoles" },
    ];
    const spec = [
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes] })('sign out @generic', ({ app }) => {});",
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes_destroy_client] })(\n  'destroy client @generic',",
      "testAgainstRunningApps({ withPattern: ['react.vite.withLegalConsent'] })('consent', ({ app }) => {});",
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes], withPattern: ['react-router.node'] })('rr',",
      "testAgainstRunningApps({ withPattern: ['vue.vite'] })('vue only @vue', ({ app }) => {});",
    ].join("\n");
    expect(describesOf(spec, runningApps)).toEqual([
      expect.objectContaining({ title: "sign out @generic", app: "react-vite", env: "withEmailCodes" }),
      expect.objectContaining({ app: "react-vite", env: "withEmailCodes_destroy_client" }),
      expect.objectContaining({ title: "consent", app: "react-vite", env: "withLegalConsent" }),
      expect.objectContaining({ title: "rr", app: "react-router-node", env: "withEmailCodes" }),
      expect.objectContaining({ title: "vue only @vue", needs: ["an app of vue.vite"] }),
    ]);
  });

  it("leaves out the tests that open a page beyond loopback (no test here reaches the internet)", () => {
    const spec = [
      "test('internal link', async ({ page }) => { await u.page.waitForURL(`${app.serverUrl}/user`); });",
      "test('external link', async ({ page }) => {\n  await u.page.waitForURL('https://clerk.com');\n});",
      "test('local', async ({ page }) => { await page.goto('http://127.0.0.1:3000/'); });",
      "test('key host', async ({ page }) => {\n  const { frontendApi } = parsePublishableKey(pk)!;\n  await page.request.post(`https://${frontendApi}/v1/dev_browser`);\n});",
    ].join("\n");
    expect(internetTests(spec)).toEqual(["external link", "key host"]);
  });

  it("leaves out what only Clerk has: its oauth-provider application and its screenshot baselines", () => {
    const runningApps = [{ id: "react.vite.withEmailCodes", env: "withEmailCodes" }];
    const spec = [
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes] })('plain @generic', ({ app }) => {",
      "  test('looks', async ({ page }) => { await expect(page).toHaveScreenshot({ fullPage: true }); });",
      "  test('works', async ({ page }) => { await page.goto('/'); });",
      "});",
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes] })('provider @generic', ({ app }) => {",
      "  test.beforeAll(() => createClerkClient({ secretKey: instanceKeys.get('oauth-provider').sk }));",
      "});",
    ].join("\n");
    expect(describesOf(spec, runningApps)).toEqual([
      expect.objectContaining({ title: "plain @generic", app: "react-vite" }),
      expect.objectContaining({ title: "provider @generic", needs: [OAUTH_PROVIDER] }),
    ]);
    expect(screenshotTests(spec)).toEqual(["looks"]);
    // Used in one test's body, or only to clean up after all of them: that test alone is left out.
    const oneTest = [
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withEmailCodes] })('tasks @generic', ({ app }) => {",
      "  test.afterAll(() => createClerkClient({ secretKey: instanceKeys.get('oauth-provider').sk }));",
      "  test('password', async () => {});",
      "  test('sso', async () => { createClerkClient({ secretKey: instanceKeys.get('oauth-provider').sk }); });",
      "});",
    ].join("\n");
    expect(describesOf(oneTest, runningApps)).toEqual([expect.objectContaining({ title: "tasks @generic" })]);
    expect(describesOf(oneTest, runningApps)[0]).not.toHaveProperty("needs");
    expect(oauthProviderTests(oneTest)).toEqual(["sso"]);
    // Its button clicked: only a test that goes on to sign in at the provider needs it.
    const button = [
      "testAgainstRunningApps({ withEnv: [appConfigs.envs.withSignInOrUpFlow] })('combined @nextjs', ({ app }) => {",
      "  test('redirect url', async () => { await u.page.getByRole('button', { name: 'E2E OAuth Provider' }).click(); });",
      "  test('at the provider', async () => {",
      "    await u.page.getByRole('button', { name: 'E2E OAuth Provider' }).click();",
      "    await u.po.signUp.enterTestOtpCode();",
      "  });",
      "});",
    ].join("\n");
    expect(oauthProviderTests(button)).toEqual(["at the provider"]);
    // A spec that writes its own Next.js middleware into the app it builds tests @clerk/nextjs.
    const middleware = [
      "test.describe('Client handshake @generic', () => {",
      "  app = await appConfigs.next.appRouter.clone().addFile('src/middleware.ts', () => `import { clerkMiddleware } from '@clerk/nextjs/server';`)",
      "});",
    ].join("\n");
    expect(describesOf(middleware, runningApps)).toEqual([expect.objectContaining({ needs: [NEXT_FILES] })]);
    // A test that reads the email the instance sent asks mailsac.com for it.
    const inbox = [
      "test('code', async () => { await u.po.signUp.enterTestOtpCode(); });",
      "test('link', async () => { const link = await u.services.email.getVerificationLinkForEmailAddress(e); });",
    ].join("\n");
    expect(inboxTests(inbox)).toEqual(["link"]);
  });

  it("gives a spec whose own app has taskUrls those task URLs, as an app variable of its own", () => {
    const runningApps = [{ id: "next.appRouter.withSessionTasks", env: "withSessionTasks" }];
    const spec = [
      "test.describe('eject @nextjs', () => {",
      "  app = await appConfigs.next.appRouter.clone().addFile('src/app/provider.tsx', () => `",
      "    <ClerkProvider taskUrls={{ 'choose-organization': '/onboarding/choose-organization' }}>`);",
      "  await app.withEnv(appConfigs.envs.withSessionTasks);",
      "});",
    ].join("\n");
    expect(taskUrlsOf(spec)).toEqual({ "choose-organization": "/onboarding/choose-organization" });
    expect(describesOf(spec, runningApps)).toEqual([
      expect.objectContaining({
        env: "withSessionTasks",
        appEnv: { CLERK_TASK_URLS: '{"choose-organization":"/onboarding/choose-organization"}' },
      }),
    ]);
    expect(taskUrlsOf("test('plain', async () => {});")).toBeNull();
  });

  it("runs a describe that names no env on the app its file is named for, else on withEmailCodes", () => {
    const runningApps = [
      { id: "react.vite.withEmailCodes", env: "withEmailCodes" },
      { id: "next.appRouter.withSignInOrUpEmailLinksFlow", env: "withSignInOrUpEmailLinksFlow" },
    ];
    const spec = "testAgainstRunningApps({ withEnv: [] })('links flow', ({ app }) => {});";
    expect(describesOf(spec, runningApps, "sign-in-or-up-email-links-flow.test.ts")).toEqual([
      expect.objectContaining({
        env: "withSignInOrUpEmailLinksFlow",
        app: "react-router-node",
        standsInFor: "next.appRouter.withSignInOrUpEmailLinksFlow",
      }),
    ]);
    expect(describesOf(spec, runningApps, "other.test.ts")).toEqual([
      expect.objectContaining({ env: "withEmailCodes", app: "react-router-node", standsInFor: "next.appRouter" }),
    ]);
  });

  it("tallies a test whose steps passed and whose describe's afterAll failed as passed, saying so; any other failure as failed", () => {
    const work = mkdtempSync(join(tmpdir(), "clerk-tally-"));
    mkdirSync(join(work, "integration/tests"), { recursive: true });
    mkdirSync(join(work, "groups/0"), { recursive: true });
    const spec = [
      "test.describe('tasks', () => {", // 1
      "  test.afterAll(async () => {", // 2
      "    await provider.deleteIfExists();", // 3
      "  });", // 4
      "  test('first', async () => {", // 5
      "    await expect(page).toBeSignedIn();", // 6
      "  });", // 7
      "  test('last', async () => {});", // 8
      "});", // 9
    ].join("\n");
    writeFileSync(join(work, "integration/tests/tasks.test.ts"), spec);
    writeFileSync(join(work, "plan.json"), JSON.stringify({ groups: [], notRun: [] }));
    const status = { app: "react-vite", env: "withEmailCodes", files: ["tasks.test.ts"], missing: [], ran: true };
    writeFileSync(join(work, "groups/0/status.json"), JSON.stringify(status));
    const at = (line: number) => `Error\n    at /w/integration/tests/tasks.test.ts:${line}:7`;
    const test = (title: string, errors: { message: string }[]) => ({
      title,
      tests: [{ projectName: "chromium", results: [{ status: "failed", errors, error: errors[0] }] }],
    });
    const report = {
      suites: [
        {
          file: "tasks.test.ts",
          specs: [
            test("first", [{ message: `TimeoutError: toBeSignedIn${at(6).slice(5)}` }]),
            test("last", [{ message: `ClerkAPIResponseError: ${at(3)}` }, { message: "{ message: 'fetch failed' }" }]),
          ],
        },
      ],
    };
    writeFileSync(join(work, "groups/0/results.json"), JSON.stringify(report));
    const out = spawnSync("node", [join(HERE, "tally.cjs"), work], { encoding: "utf8" }).stdout;
    rmSync(work, { recursive: true, force: true });
    expect(out).toContain("tasks.test.ts: 1 passed / 1 failed / 0 skipped");
    expect(out).toContain("x first: TimeoutError: toBeSignedIn");
    expect(out).toContain(
      "✓ last: passed; its describe's afterAll failed: ClerkAPIResponseError: Error { message: 'fetch failed' }",
    );
  });

  it("gives the emulator only the dashboard switches --instance takes, in the environment JSON's keys", async () => {
    // The emulator's own reader of the file, through the control API: an unknown key or a value a switch
    // does not take is refused with a 400.
    const emulator = await startInProcessEmulator();
    try {
      for (const name of Object.keys(ENVS)) {
        const set = await patchInstance(emulator.origin, envSettings(name).instance);
        expect(set.status, `${name}: ${JSON.stringify(set.body)}`).toBe(200);
      }
    } finally {
      await emulator.close();
    }
  });
});

describe("the emulator as the harness starts it, behind its apps' proxy rule", () => {
  const options = emulatorOptions();
  const work = mkdtempSync(join(tmpdir(), "clerk-integration-harness-"));
  let emulator: GroupChild | null = null;
  let vite: ViteDevServer | null = null;
  let appUrl = "";
  let printed: Record<string, string> = {};
  let command: { args: string[]; missing: string[] } = { args: [], missing: [] };

  beforeAll(async () => {
    const [emulatorPort, appPort] = [await freePort(), await freePort()];
    appUrl = `http://127.0.0.1:${appPort}`;
    // Clerk's with-email-codes instance, the env most specs run on; what this emulator lacks of it is left
    // out, as CLERK_INTEGRATION_APPROXIMATE=1 does, so the command is one the harness runs today.
    const group = { ...envSettings("withEmailCodes"), env: "withEmailCodes" };
    const where = {
      port: emulatorPort,
      appUrl,
      npmDir: join(ROOT, "node_modules"),
      latencyMs: 0,
      frontendLatencyMs: 300,
    };
    command = groupCommand(group, work, where, options, true);
    emulator = spawnGroup(process.execPath, command.args, ROOT, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
      CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR,
      NODE_ENV: "test",
    });
    const started = Date.now();
    while (!/^CLERK_PROXY_URL=/m.test(emulator.output())) {
      if (emulator.exitCode !== null || Date.now() - started > 20_000)
        throw new Error(`the emulator did not start:\n${emulator.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    printed = Object.fromEntries(
      [...emulator.output().matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    vite = await createServer({
      configFile: false,
      root: work,
      logLevel: "silent",
      optimizeDeps: { noDiscovery: true, include: [] },
      server: {
        host: "127.0.0.1",
        port: appPort,
        strictPort: true,
        proxy: clerkProxy(`http://127.0.0.1:${emulatorPort}`),
      },
    });
    await vite.listen();
  }, 40_000);

  afterAll(async () => {
    await vite?.close();
    await stopGroup(emulator, "SIGKILL");
  });

  it("starts with the harness's flags and prints the keys the harness reads", () => {
    expect(command.args.slice(0, 1)).toEqual([EMULATOR_BIN]);
    expect(command.args).toEqual(expect.arrayContaining(["--proxy-url", `${appUrl}/__clerk`, "--control"]));
    expect(printed.CLERK_PROXY_URL).toBe(`${appUrl}/__clerk`);
    expect(printed.CLERK_PUBLISHABLE_KEY).toMatch(options.has("--development") ? /^pk_test_/ : /^pk_(live|test)_/);
    expect(printed.CLERK_SECRET_KEY).toMatch(/^sk_(live|test)_/);
    expect(printed.CLERK_JWT_KEY).toContain("BEGIN PUBLIC KEY");
  });

  it("serves the Frontend API's environment through the proxy rule, and never the control API", async () => {
    const res = await fetch(`${appUrl}/__clerk/v1/environment?__clerk_api_version=2025-11-10`);
    expect(res.status).toBe(200);
    const environment = (await res.json()) as { auth_config: { single_session_mode: boolean } };
    // With --instance, the file's switch (with-email-codes is multi-session); without, Clerk's default.
    expect(environment.auth_config.single_session_mode).toBe(!options.has("--instance"));
    expect((await fetch(`${appUrl}/__clerk/_emulator/state`)).status).toBe(404);
  });

  it("serves the Backend API with the printed secret key, as the suite's clerkSetup and services call it", async () => {
    const clerk = createClerkClient({ secretKey: printed.CLERK_SECRET_KEY!, apiUrl: printed.CLERK_API_URL! });
    const user = await clerk.users.createUser({ emailAddress: ["harness@example.com"], password: "a-long-Passw0rd!" });
    expect((await clerk.users.getUser(user.id)).primaryEmailAddress?.emailAddress).toBe("harness@example.com");
    const token = await fetch(`${printed.CLERK_API_URL}/v1/testing_tokens`, {
      method: "POST",
      headers: { Authorization: `Bearer ${printed.CLERK_SECRET_KEY}` },
    });
    expect(token.status).toBe(200);
  });
});
