import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "~": resolve(import.meta.dirname, "app") };

export default defineConfig({
  test: {
    projects: [
      // The emulator's own tests (packages/clerk-emulator/tests): they need no app build.
      {
        test: {
          name: "emulator-unit",
          // coverage.test.ts runs the coverage script (vite-node, seconds on a loaded machine).
          testTimeout: 30_000,
          root: "packages/clerk-emulator",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "emulator-api",
          root: "packages/clerk-emulator",
          include: ["tests/api/**/*.test.ts"],
          environment: "node",
          // Every answer is checked against Clerk's OpenAPI spec, as in the app's integration tests.
          setupFiles: ["contract/setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          expect: { poll: { timeout: 10_000 } },
          // npm test runs these beside the app's phases with one worker (scripts/test.mjs); alone, two suit two cores.
          maxWorkers: Number(process.env.EMULATOR_API_WORKERS) || 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          environment: "node",
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          // Every Clerk API answer the tests' servers give is checked against Clerk's spec.
          setupFiles: ["tests/support/contract-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // A browser page (clerk-js rendering Clerk's components) can take seconds on a loaded CI
          // machine: vitest's default of 1 s for expect.poll made such checks fail by chance.
          expect: { poll: { timeout: 10_000 } },
          // Each file starts its own server; two at a time suits two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "firefox",
          include: ["tests/firefox/**/*.test.ts"],
          environment: "node",
          // The same contract check as the integration tests.
          setupFiles: ["tests/support/contract-setup.ts"],
          testTimeout: 30_000,
          // A file's server and Firefox start in beforeAll.
          hookTimeout: 60_000,
          // Each file has its own server and browsers: two files at a time suits two cores.
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
