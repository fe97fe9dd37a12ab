import { watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { broadcastDevReady, type ServerBuild } from "@remix-run/node";
import { withErrorReferences } from "./error-references";
import { routeIdsOf } from "./route-ids";

/** The build on disk is not one this server may answer with. */
export class WrongBuildError extends Error {}

export type AppBuild = {
  /** What Remix's request handler answers with: the build, or (in development) a getter for the latest. */
  remix: ServerBuild | (() => Promise<ServerBuild>);
  /** The Remix route id a path is for (metric labels, error reports). */
  routeId(pathname: string): string;
};

/**
 * The Remix build the server answers with.
 *
 * In production it is read once, and its loaders and actions answer an
 * unexpected error with the catalogue's 500 and a reference.
 *
 * Under `remix dev` (`npm run dev`, which sets REMIX_DEV_ORIGIN) it is read
 * again after every rebuild and announced to the dev server
 * (`broadcastDevReady`), which then hands the open browser its hot update.
 * Errors keep their message and stack there, for Remix's development error
 * page.
 */
export async function loadAppBuild(path: string, { dev }: { dev: boolean }): Promise<AppBuild> {
  const read = async () => (await import(`${pathToFileURL(path).href}?t=${(await stat(path)).mtimeMs}`)) as ServerBuild;
  let build = await read();
  let routeId = routeIdsOf(build);
  // `npm run dev` leaves a development build (stacks on error pages, a dev socket the CSP refuses).
  if (!dev && build.mode !== "production") {
    throw new WrongBuildError("build/ holds a development build (npm run dev's): run `npm run build` first.");
  }
  if (!dev) {
    // (A build, not a getter: Remix derives its routes once, not per request.)
    return { remix: withErrorReferences(build), routeId };
  }

  await broadcastDevReady(build);
  // Remix writes the build in several steps: load it once the writes settle.
  let settle: NodeJS.Timeout | undefined;
  watch(dirname(path), (_event, file) => {
    if (file !== basename(path)) return;
    clearTimeout(settle);
    settle = setTimeout(() => {
      read().then(
        async (next) => {
          build = next;
          routeId = routeIdsOf(next);
          await broadcastDevReady(next);
        },
        (error: unknown) => console.error("Could not load the new build:", error),
      );
    }, 50);
  }).unref();
  return { remix: async () => build, routeId: (pathname) => routeId(pathname) };
}
