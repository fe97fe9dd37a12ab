import type { Request } from "express";

/**
 * What Clerk's Frontend API reads when it sits behind the app's documented
 * Frontend API proxy (clerk.com/docs/guides/dashboard/dns-domains/proxy-fapi):
 * the proxy adds `Clerk-Proxy-Url` (the public URL the browser uses, e.g.
 * `https://app.example.com/__clerk`), `Clerk-Secret-Key` (which proves the
 * proxy is the instance's own) and `X-Forwarded-For`; most proxies add
 * `X-Forwarded-Host` and `X-Forwarded-Proto` too.
 */

/** Whether Express's `trust proxy` setting believes the hop this request came from. */
function fromTrustedProxy(req: Request): boolean {
  const trust = req.app.get("trust proxy fn") as ((address: string, hop: number) => boolean) | undefined;
  return trust ? trust(req.socket.remoteAddress ?? "", 0) : false;
}

/** The host the browser asked for (with its port): `X-Forwarded-Host` from a trusted proxy, else `Host`. */
export function publicHost(req: Request): string | undefined {
  const forwarded = fromTrustedProxy(req) ? req.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return forwarded || req.get("host");
}

/** The origin the browser used for this request (`req.protocol` already honours a trusted `X-Forwarded-Proto`). */
export function publicOrigin(req: Request): string | null {
  const host = publicHost(req);
  return host ? `${req.protocol}://${host}` : null;
}

/**
 * The proxy's public URL from `Clerk-Proxy-Url`, when the request carries one
 * and either proves itself with the instance's secret key or comes from a
 * proxy Express trusts. A wrong `Clerk-Secret-Key` is refused by the caller.
 */
export function proxyUrlOf(req: Request, secretKey: string): URL | null {
  const header = req.get("clerk-proxy-url");
  if (!header) return null;
  const key = req.get("clerk-secret-key");
  if (key !== secretKey && !fromTrustedProxy(req)) return null;
  try {
    const url = new URL(header);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

/** A `Clerk-Secret-Key` that names another instance: Clerk refuses the proxied request. */
export function wrongProxySecret(req: Request, secretKey: string): boolean {
  const key = req.get("clerk-secret-key");
  return key !== undefined && key !== secretKey;
}

/** The path the Frontend API has in the browser's eyes: the proxy's path, else where it is mounted. */
export function frontendApiPath(req: Request, secretKey: string, mountPath: string): string {
  const proxied = proxyUrlOf(req, secretKey)?.pathname.replace(/\/+$/, "");
  return proxied || mountPath || "/";
}

/**
 * Whether a redirect after the handshake may go to `target`: the instance's
 * allowed origins (Clerk's "allowed origins" setting), the proxy's own origin,
 * or the origin the browser used to reach the Frontend API. Clerk checks the
 * first two; the last keeps an app that mounts the emulator on its own origin
 * (local mode) working with no configuration.
 */
export function redirectAllowed(req: Request, target: URL, allowedOrigins: readonly string[], secretKey: string) {
  if (target.protocol !== "http:" && target.protocol !== "https:") return false;
  if (allowedOrigins.includes(target.origin)) return true;
  const proxy = proxyUrlOf(req, secretKey);
  if (proxy && proxy.origin === target.origin) return true;
  return target.host === publicHost(req);
}

/** `http://localhost:3000/` → `http://localhost:3000`; null for what is not an http(s) origin. */
export function normaliseOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.origin;
  } catch {
    return null;
  }
}

/**
 * Headers only a proxy puts on a request: the `X-Forwarded-*` family, the
 * standard `Forwarded` and `Via`, nginx's customary `X-Real-IP`, and Clerk's
 * own `Clerk-Proxy-Url`. A test calling the emulator straight sends none.
 */
const PROXY_HEADERS = new Set(["forwarded", "via", "x-real-ip", "clerk-proxy-url"]);
const isProxyHeader = (name: string) => PROXY_HEADERS.has(name) || name.startsWith("x-forwarded-");

/**
 * The proxy headers a request carries (lower-case, whatever their value), or
 * none. Read from the raw headers as they arrived, not only `req.headers`: a
 * host's middleware may have dropped one it does not believe (the app drops
 * `X-Forwarded-Host` from peers it does not trust), and the request still came
 * through a proxy.
 */
export function proxyHeadersOf(req: Pick<Request, "rawHeaders" | "headers">): string[] {
  const names = [...req.rawHeaders.filter((_, i) => i % 2 === 0), ...Object.keys(req.headers)];
  return [...new Set(names.map((name) => name.toLowerCase()).filter(isProxyHeader))];
}
