import { createServer } from "node:http";
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

/** A loopback port free right now. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}
