/**
 * A same-origin path to send someone back to, or the fallback. Rejects
 * absolute URLs, protocol-relative (`//host`) and backslash tricks (`/\host`).
 */
export function safeRedirectPath(to: unknown, fallback = "/"): string {
  if (typeof to !== "string" || to.length === 0 || to.length > 2048) return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.includes("\\")) return fallback;
  if (/[\u0000-\u001f\u007f]/.test(to)) return fallback;
  try {
    const url = new URL(to, "http://same-origin.invalid");
    if (url.origin !== "http://same-origin.invalid") return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
