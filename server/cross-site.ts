import type { RequestHandler } from "express";
import { WEBHOOK_PATH } from "./clerk-webhooks";
import { refuse } from "./refuse";

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
  if (["GET", "HEAD", "OPTIONS"].includes(input.method)) return false;
  if (input.origin !== undefined) return input.origin !== input.ownOrigin;
  return input.fetchSite === "cross-site";
}

/**
 * Writes may come only from `publicOrigin` (PUBLIC_ORIGIN, the address people
 * use); without one (local mode), from the origin this request was sent to.
 */
export function refuseCrossSiteWrites(publicOrigin: string | null): RequestHandler {
  return (req, res, next) => {
    // Clerk's webhooks come from Clerk, not a page: the endpoint checks their signature.
    if (req.path === WEBHOOK_PATH && req.get("svix-signature") !== undefined) return next();
    const ownOrigin = publicOrigin ?? `${req.protocol}://${req.get("host")}`;
    if (
      isCrossSiteWrite({
        method: req.method,
        origin: req.get("Origin"),
        fetchSite: req.get("Sec-Fetch-Site"),
        ownOrigin,
      })
    ) {
      return refuse(
        res,
        403,
        "Not allowed from another site",
        "This form can only be sent from this site's own pages. Go back and try again from there.",
      );
    }
    next();
  };
}
