const BASE = "http://same-origin.invalid";

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
