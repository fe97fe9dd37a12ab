import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import express, { type Router } from "express";

/**
 * Clerk's CDN for the browser scripts, from packages on disk. With a
 * `proxyUrl`, Clerk's SDKs load `<proxyUrl>/npm/@clerk/clerk-js@<major>/dist/clerk.browser.js`
 * (and, on Core 3, `@clerk/ui`'s bundle the same way) unless the app names
 * another URL; the emulator answers those from the `@clerk/*` packages in the
 * given node_modules folders, so a page loads the real clerk-js with no network.
 */
export type ScriptPackages = { dirs: string[] };

/** Whether `version` (1.2.3) is what `wanted` asks for: "latest", a major ("6"), a major.minor ("6.40") or exact. */
export function versionMatches(version: string, wanted: string): boolean {
  if (wanted === "latest" || wanted === "") return true;
  const have = version.split(/[.+-]/);
  const want = wanted.replace(/^[\^~]/, "").split(".");
  return want.every((part, i) => part === "x" || part === "*" || part === have[i]);
}

function packageDir(dirs: string[], name: string, wanted: string): string | null {
  for (const dir of dirs) {
    const candidate = join(dir, "@clerk", name);
    const manifest = join(candidate, "package.json");
    if (!existsSync(manifest)) continue;
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
    if (version && versionMatches(version, wanted)) return candidate;
  }
  return null;
}

export function createScriptCdn({ dirs }: ScriptPackages): Router {
  const router = express.Router();
  router.get(/^\/npm\/@clerk\/([a-z0-9-]+)@([^/]*)\/(.+)$/, (req, res) => {
    const [name, wanted, file] = [req.params[0]!, req.params[1]!, req.params[2]!];
    const dir = packageDir(dirs, name, decodeURIComponent(wanted));
    const path = dir ? resolve(dir, file) : null;
    // Only files inside the package (no `..`), and only what it ships in dist/.
    if (!dir || !path || relative(dir, path).startsWith("..") || !path.startsWith(`${join(dir, "dist")}${sep}`)) {
      res.status(404).type("text/plain").send(`No @clerk/${name}@${wanted} here (--npm-dir adds packages).`);
      return;
    }
    res.sendFile(
      path,
      { headers: { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" } },
      (error) => {
        if (error && !res.headersSent) res.status(404).type("text/plain").send(`No ${file} in @clerk/${name}.`);
      },
    );
  });
  return router;
}
