import type { RequestHandler } from "express";
import { WEBHOOK_PATH } from "./clerk-webhooks";
import { effectiveHost } from "./forwarded-host";
import { refuse } from "./refuse";

const isWrite = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method);

/**
 * A state-changing request from another site (a forged form, say) is refused,
 * on top of SameSite=Lax cookies. Browsers send `Origin` on POST; when it is
 * missing, `Sec-Fetch-Site` tells. Non-browser clients send neither.
 */
export function isCrossSiteWrite(input: {
  method: string;
  origin?: string;
  fetchSite?: string;
  ownOrigin: string;
}): boolean {
  if (!isWrite(input.method)) return false;
  if (input.origin !== undefined) return input.origin !== input.ownOrigin;
  return input.fetchSite === "cross-site";
}

/**
 * A write addressed to a host this site does not answer for: the effective
 * host (a trusted proxy's `X-Forwarded-Host`, else `Host`) is not
 * PUBLIC_ORIGIN's, or (local mode, no PUBLIC_ORIGIN) a forwarded host is not
 * the `Host` itself, or it is not the host `Origin` names. Remix's own check
 * throws on the last, which would be a 500 and an error report; this refuses
 * everything it would throw on, before it runs.
 */
export function isForeignHostWrite(input: {
  method: string;
  origin?: string;
  host?: string;
  forwardedHost?: string;
  publicHost: string | null;
}): boolean {
  if (!isWrite(input.method)) return false;
  const asked = effectiveHost(input.host, input.forwardedHost);
  if (asked === undefined) return true;
  if (input.publicHost !== null ? asked !== input.publicHost : asked !== input.host) return true;
  return input.origin !== undefined && hostOf(input.origin) !== asked;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * Writes may come only from `publicOrigin` (PUBLIC_ORIGIN, the address people
 * use), addressed to its host; without one (local mode), from the origin this
 * request was sent to.
 */
export function refuseCrossSiteWrites(publicOrigin: string | null): RequestHandler {
  const publicHost = publicOrigin === null ? null : new URL(publicOrigin).host;
  return (req, res, next) => {
    // Clerk's webhooks come from Clerk, not a page: the endpoint checks their signature.
    if (req.path === WEBHOOK_PATH && req.get("svix-signature") !== undefined) return next();
    const ownOrigin = publicOrigin ?? `${req.protocol}://${req.get("host")}`;
    const origin = req.get("Origin");
    if (isCrossSiteWrite({ method: req.method, origin, fetchSite: req.get("Sec-Fetch-Site"), ownOrigin })) {
      return refuse(
        res,
        403,
        "Not allowed from another site",
        "This form can only be sent from this site's own pages. Go back and try again from there.",
      );
    }
    const host = req.get("Host");
    const forwardedHost = req.get("X-Forwarded-Host");
    if (isForeignHostWrite({ method: req.method, origin, host, forwardedHost, publicHost })) {
      return refuse(
        res,
        403,
        "Wrong address",
        "This form was sent to an address this site does not answer for. Open the site at its usual address and try again.",
      );
    }
    next();
  };
}
