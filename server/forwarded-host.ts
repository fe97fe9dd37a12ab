import type { Request, RequestHandler } from "express";

/**
 * Express believes `X-Forwarded-Host` only from a trusted proxy (TRUST_PROXY),
 * but Remix reads the raw header: for the port of `request.url`, and for its
 * own cross-site check on actions, which throws (a 500) when `Origin` names
 * another host. So a header no trusted proxy vouches for is dropped here, first
 * thing, and everything downstream sees one answer to "which host was asked".
 */
export function believeForwardedHostOnlyFromProxies(): RequestHandler {
  return (req, _res, next) => {
    if (req.headers["x-forwarded-host"] !== undefined && !fromTrustedProxy(req)) {
      delete req.headers["x-forwarded-host"];
    }
    next();
  };
}

function fromTrustedProxy(req: Request): boolean {
  const trust = req.app.get("trust proxy fn") as (address: string | undefined, hop: number) => boolean;
  return trust(req.socket.remoteAddress, 0);
}

/** The host the request was sent to, as Remix's cross-site check reads it: the first `X-Forwarded-Host`, else `Host`. */
export function effectiveHost(host: string | undefined, forwardedHost: string | undefined): string | undefined {
  return forwardedHost?.split(",")[0]?.trim() || host;
}
