/**
 * URLs for server-side calls to a service this app was configured to talk to.
 *
 * `new URL(path, base)` lets the path choose where the request goes: `//host/x`
 * is protocol-relative, `http://host/` absolute, `..` and `%2e%2e` climb out of
 * the base path, and `\` counts as `/`. Here the origin is fixed once, from
 * configuration, and a path is only ever a list of plain segments under it;
 * the URL built is checked to still be where it was meant to be before anyone
 * fetches it.
 */

/** Longer than any path the app sends upstream; a request's splat past it is not worth reading. */
export const MAX_UPSTREAM_PATH_LENGTH = 256;

// Unreserved characters (RFC 3986) only: no `%` (nothing is decoded again
// upstream), no `:` or `@` (no scheme or credentials), no `\`, no spaces.
const SEGMENT = /^[A-Za-z0-9._~-]+$/;
const DOTS_ONLY = /^\.+$/;

/** A path that could leave the fixed origin or base path, or is not plain: the caller answers 400. */
export class UnsafeUpstreamPathError extends Error {
  constructor(readonly reason: string) {
    super(`unsafe upstream path: ${reason}`);
    this.name = "UnsafeUpstreamPathError";
  }
}

/** The configured base URL cannot serve as a fixed origin (a configuration mistake, not a request's). */
export class InvalidUpstreamBaseError extends Error {
  constructor(reason: string) {
    super(`invalid upstream base URL: ${reason}`);
    this.name = "InvalidUpstreamBaseError";
  }
}

/** Why `path` is not a plain relative path of segments, or null when it is. */
function pathProblem(path: string): string | null {
  if (path.length > MAX_UPSTREAM_PATH_LENGTH) return "too long";
  if (path === "") return null;
  if (path.startsWith("/")) return "not relative";
  const segments = path.split("/");
  for (const [index, segment] of segments.entries()) {
    // `a/b/` keeps its trailing slash (some APIs route on it); `a//b` has an empty segment.
    if (segment === "" && index === segments.length - 1) continue;
    if (!SEGMENT.test(segment)) return "a segment has characters outside [A-Za-z0-9._~-] or is empty";
    if (DOTS_ONLY.test(segment)) return "a segment is only dots";
  }
  return null;
}

export type UpstreamUrls = {
  /** The fixed origin, e.g. `https://us.i.posthog.com`. */
  readonly origin: string;
  /** The base URL's path, always ending in `/` (`/` for most services). */
  readonly basePath: string;
  /**
   * `path` (relative to the base path: `e/`, `v1/users`) under the fixed
   * origin, with `query` (`?a=b`, or empty). Throws `UnsafeUpstreamPathError`.
   */
  build(path: string, query?: string | URLSearchParams): URL;
};

/** Fixes the origin (and base path) of one upstream from its configured base URL; throws `InvalidUpstreamBaseError`. */
export function upstreamUrls(base: string): UpstreamUrls {
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new InvalidUpstreamBaseError("not an absolute URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new InvalidUpstreamBaseError("not http(s)");
  if (parsed.username || parsed.password) throw new InvalidUpstreamBaseError("has credentials");
  if (parsed.search || parsed.hash || base.includes("?") || base.includes("#"))
    throw new InvalidUpstreamBaseError("has a query or a fragment");
  const basePath = parsed.pathname.endsWith("/") ? parsed.pathname : `${parsed.pathname}/`;
  const baseProblem = pathProblem(basePath.slice(1));
  if (baseProblem) throw new InvalidUpstreamBaseError(`its path: ${baseProblem}`);
  const { origin } = parsed;

  return {
    origin,
    basePath,
    build(path, query = "") {
      const problem = typeof path === "string" ? pathProblem(path) : "not a string";
      if (problem) throw new UnsafeUpstreamPathError(problem);
      const url = new URL(`${basePath}${path}`, origin);
      const search = query.toString();
      if (search.includes("#")) throw new UnsafeUpstreamPathError("the query has a fragment");
      url.search = search;
      // What was checked is what will be fetched: same origin, path exactly as built, nothing else.
      if (url.origin !== origin || url.pathname !== `${basePath}${path}` || url.username || url.password || url.hash)
        throw new UnsafeUpstreamPathError("the URL left its origin");
      return url;
    },
  };
}
