// Copied into the extracted suite's integration/ folder: the suite's own settings
// (integration/playwright.config.ts's `common`) with Debian's Chromium and the project's launch flags
// (tests/support/chromium-args.json), one worker, no retries, and a JSON report beside the list.
import { readFileSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { common } from "./playwright.config";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/clerk-integration.sh sets it)`);
  return value;
};

export default defineConfig({
  ...common,
  workers: 1,
  retries: 0,
  maxFailures: undefined,
  reporter: [["list"], ["json", { outputFile: env("CLERK_INTEGRATION_REPORT") }]],
  projects: [
    { name: "setup", testMatch: /global\.setup/, teardown: "teardown" },
    { name: "teardown", testMatch: /global\.teardown/ },
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: env("CHROMIUM_PATH"),
          args: JSON.parse(readFileSync(env("CLERK_INTEGRATION_CHROMIUM_ARGS"), "utf8")) as string[],
        },
      },
      dependencies: ["setup"],
    },
  ],
});
