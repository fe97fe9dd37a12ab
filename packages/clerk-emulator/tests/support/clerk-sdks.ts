import { createRequire } from "node:module";
import { join } from "node:path";
import { createClerkClient as createCore2Client } from "@clerk/backend";
import { expect } from "vitest";
import { CORE3_FIXTURE } from "./paths";

/**
 * Clerk's two SDK lines' Backend API clients: `@clerk/backend` 2 (this app's,
 * Core 2) and 3 (tests/fixtures/core3's, Core 3), each as a factory, for tests
 * that call the emulator through both.
 */
const core3Require = createRequire(join(CORE3_FIXTURE, "package.json"));
export type BackendClient = ReturnType<typeof createCore2Client>;
export type CreateBackendClient = (options: { secretKey: string; apiUrl: string }) => BackendClient;

/** @clerk/backend 3's module, checked to be version 3. */
export async function loadCore3Backend<T = { createClerkClient: CreateBackendClient }>(): Promise<T> {
  expect((core3Require("@clerk/backend/package.json") as { version: string }).version).toMatch(/^3\./);
  return (await import(core3Require.resolve("@clerk/backend"))) as T;
}

export const backendSdks: [string, () => Promise<CreateBackendClient>][] = [
  ["@clerk/backend 2 (Core 2)", async () => createCore2Client as unknown as CreateBackendClient],
  ["@clerk/backend 3 (Core 3)", async () => (await loadCore3Backend()).createClerkClient],
];
