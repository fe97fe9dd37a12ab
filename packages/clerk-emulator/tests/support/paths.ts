import { join, resolve } from "node:path";

/** The package's own folder. */
export const PACKAGE_ROOT = resolve(import.meta.dirname, "../..");

/**
 * The repository the package sits in: the one place its tests reach outside
 * it, for the SDKs it is checked against (node_modules, and Clerk's Core 3
 * SDKs, a second install in tests/fixtures/core3).
 */
export const REPO_ROOT = resolve(PACKAGE_ROOT, "../..");
export const CORE3_FIXTURE = join(REPO_ROOT, "tests/fixtures/core3");
