import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./tests/support/chromium";
import { NETWORK_GUARD_PATH } from "./tests/support/guard";

const PORT = Number(process.env.E2E_PORT ?? 4417);
// One server for the whole run, in local mode on a fresh emulator state.
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "teamwork-e2e-"));
process.env.E2E_DATA_DIR = dataDir;
const guardLog = join(dataDir, "network-guard.log");
writeFileSync(guardLog, "", { flag: "a" });
process.env.NETWORK_GUARD_LOG = guardLog;
// Every server of the run records the emulator's answers here, for the contract
// check (tests/e2e/fixtures.ts per test; scripts/test.mjs over the whole suite).
const recordDir = join(process.env.CLERK_CONTRACT_DIR ?? join(dataDir, "contract"), "playwright");
process.env.CLERK_EMULATOR_RECORD_DIR = recordDir;
export const E2E_TOKEN_TTL_SECONDS = 20;
// A second server with analytics on, sending to the capture sink that
// tests/e2e/global-setup.ts starts (PostHog itself is never reached).
export const ANALYTICS_PORT = PORT + 2;
export const SINK_PORT = PORT + 1;
process.env.E2E_SINK_ORIGIN = `http://127.0.0.1:${SINK_PORT}`;
process.env.E2E_ANALYTICS_ORIGIN = `http://localhost:${ANALYTICS_PORT}`;

// Playwright stops its webServers (each in a process group of its own) when its runner ends or gets
// SIGINT, but a SIGTERM (a CI timeout, `kill`) ended the runner and left them running: it is taken
// as SIGINT. Workers load this file too; they are stopped by the runner.
if (!process.env.TEST_WORKER_INDEX) process.once("SIGTERM", () => process.kill(process.pid, "SIGINT"));

const serverEnv = (port: number, dir: string) => ({
  NODE_ENV: "production",
  PORT: String(port),
  CLERK_EMULATOR_DATA_DIR: dir,
  CLERK_EMULATOR_TOKEN_TTL: String(E2E_TOKEN_TTL_SECONDS),
  CLERK_TELEMETRY_DISABLED: "1",
  RATE_LIMIT_SCALE: "1000",
  CLERK_EMULATOR_CONTROL: "1",
  // (As tests/support/server.ts: a loaded test machine, not the app, makes timers late.)
  SHED_EVENT_LOOP_DELAY_MS: "0",
  NETWORK_GUARD_LOG: guardLog,
  CLERK_EMULATOR_RECORD_DIR: recordDir,
  NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
});

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  // Under `npm test` a test that fails is run once more: a real failure fails
  // twice, and one that passes on its second try is named as flaky at the end.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["json", { outputFile: "test-results/playwright.json" }]] : [["list"]],
  // Its own folder: Playwright empties its output folder when it starts, and test-results/ also holds what
  // the other phases of npm test leave for the end (the emulator's report, the contract recordings).
  outputDir: "test-results/playwright",
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    // A failed test's trace (each action with the page's DOM before and after) comes from its retry under
    // `npm test`, so a passing first try records none: recording every test and keeping the failures' cost
    // about 6% of an e2e run's CPU. Run alone (no retry), a failure keeps the trace of its one try. A
    // screencast in the trace would cost a fifth of the run's CPU.
    trace: { mode: process.env.CI ? "on-first-retry" : "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "javascript-on", use: { javaScriptEnabled: true }, grepInvert: /@nojs/ },
    { name: "javascript-off", use: { javaScriptEnabled: false }, grepInvert: /@js\b/ },
  ],
  globalSetup: "./tests/e2e/global-setup.ts",
  webServer: [
    {
      command: "node build/server.js",
      url: `http://localhost:${PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      env: serverEnv(PORT, dataDir),
    },
    {
      command: "node build/server.js",
      url: `http://localhost:${ANALYTICS_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 30_000,
      env: {
        ...serverEnv(ANALYTICS_PORT, mkdtempSync(join(tmpdir(), "teamwork-e2e-analytics-"))),
        POSTHOG_KEY: "phc_e2e",
        POSTHOG_HOST: `http://127.0.0.1:${SINK_PORT}`,
        LOG_LEVEL: "silent",
      },
    },
  ],
});
