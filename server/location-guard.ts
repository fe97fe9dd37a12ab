import type { RequestHandler } from "express";
import { safeLocation } from "../app/lib/http/safe-redirect";
import { logEvent } from "../app/lib/log.server";
import { beforeHead } from "./before-head";

/**
 * The one way out: every `Location` this server answers with, whoever wrote
 * it (a route, Remix, Clerk's SDK, the emulator, Express), is checked by
 * `safeLocation` as the head is written, and one that would send the browser
 * to another site is replaced (and logged, without its value). `origin` is
 * the page's as the browser sees it (PUBLIC_ORIGIN behind a proxy, else the
 * request's own); `elsewhere`, the origins a redirect may leave for (Clerk's
 * Frontend API in keys mode, for its handshake).
 */
export function locationGuard({
  publicOrigin,
  elsewhere,
  exceptUnder = null,
}: {
  publicOrigin: string | null;
  elsewhere: readonly string[];
  /** A path (the local emulator's, standing in for Clerk) whose redirects its own rules check: Clerk's are Clerk's. */
  exceptUnder?: string | null;
}): RequestHandler {
  return (req, res, next) => {
    if (exceptUnder && req.path.startsWith(exceptUnder)) return next();
    beforeHead(res, (head) => {
      const location = head.getHeader("Location");
      if (location === undefined) return;
      const origin = publicOrigin ?? `${req.protocol}://${req.get("Host") ?? "localhost"}`;
      const value = String(Array.isArray(location) ? location[0] : location);
      const safe = safeLocation(value, { origin, elsewhere });
      // (A same-origin absolute URL comes back as its path: the same place, left as written.)
      if (sameTarget(value, safe, origin)) return;
      logEvent("location_refused", { status: head.statusCode });
      head.setHeader("Location", safe);
    });
    next();
  };
}

function sameTarget(before: string, after: string, origin: string): boolean {
  try {
    return new URL(before, origin).href === new URL(after, origin).href;
  } catch {
    return false;
  }
}
