const BASE = "http://same-origin.invalid";
/** A URL written with its scheme and `//` (the `https://` of an absolute URL), as browsers read one. */
const ABSOLUTE = /^[\u0000-\u0020]*https?:[\t\n\r]*[/\\][\t\n\r]*[/\\]/i;

/**
 * A same-origin path to send someone back to, or the fallback. The path is
 * normalised first (dot segments, percent-encoded dots) and checked after, so
 * `/.//evil.example` or `/%2e//evil.example` cannot become `//evil.example`,
 * which a browser reads as another host.
 */
export function safeRedirectPath(to: unknown, fallback = "/"): string {
  if (typeof to !== "string" || to.length === 0 || to.length > 2048) return fallback;
  if (!to.startsWith("/") || to.includes("\\") || /[\u0000-\u001f\u007f]/.test(to)) return fallback;
  let url: URL;
  try {
    url = new URL(to, BASE);
  } catch {
    return fallback;
  }
  const path = url.pathname + url.search + url.hash;
  if (url.origin !== BASE || !path.startsWith("/") || path.startsWith("//")) return fallback;
  return path;
}

/**
 * Where an answer may send the browser: the one check every `Location` this
 * server writes passes through (server/location-guard.ts), the app's own and
 * those Clerk's SDK makes. `location` is read as a browser reads it, relative
 * to `origin` (the page's, as the browser sees it): tabs and newlines are
 * dropped, backslashes are slashes, dot segments are resolved. A place on
 * `origin` written as an absolute URL comes back whole (normalised); written
 * as a path, it comes back as a path whose leading slashes are folded into
 * one, so no path (`//evil.example`, `/\evil.example`, `/.//evil.example`)
 * can read as another host once written; a place on one of `elsewhere` (Clerk's
 * Frontend API, for its handshake) comes back whole; anything else, or
 * anything unreadable, is `fallback`.
 */
export function safeLocation(
  location: string,
  { origin, elsewhere = [], fallback = "/" }: { origin: string; elsewhere?: readonly string[]; fallback?: string },
): string {
  if (location.length > 8192 || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(location)) return fallback;
  let url: URL;
  try {
    url = new URL(location, origin);
  } catch {
    return fallback;
  }
  if (url.username || url.password) return fallback;
  if (url.origin === new URL(origin).origin) {
    // Written whole (a scheme and a host), it cannot be read as another host: kept whole.
    if (ABSOLUTE.test(location)) return url.href;
    return url.pathname.replace(/^\/+/, "/") + url.search + url.hash;
  }
  return elsewhere.includes(url.origin) ? url.href : fallback;
}
