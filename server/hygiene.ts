import type { RequestHandler } from "express";
import { refuse, refuseUnread } from "./refuse";

/** The methods this app answers; anything else is refused before Remix (which cannot even represent TRACE). */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"];

export const MAX_BODY_BYTES = 1_000_000;

// A host name, an IPv4 address or a bracketed IPv6 address, and an optional port.
const HOST_HEADER =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const SESSION_COOKIE = /^__session(_[A-Za-z0-9-]+)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isWellFormedJwt(value: string): boolean {
  const parts = value.split(".");
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return false;
  try {
    JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
    JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * The Cookie header without what would crash a parser downstream: values
 * that are not valid percent-encoding, and session cookies that are not even
 * shaped like a JWT (@clerk/backend throws on those instead of treating the
 * visitor as signed out). A dropped cookie means "not there", as it should.
 * (A filter over the raw pairs: a cookie library would decode, and so hide,
 * exactly what is being checked.)
 */
export function sanitizeCookieHeader(header: string): string {
  return header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => {
      const eq = part.indexOf("=");
      if (eq <= 0) return false;
      const name = part.slice(0, eq);
      const value = part.slice(eq + 1);
      try {
        decodeURIComponent(value);
      } catch {
        return false;
      }
      return !SESSION_COOKIE.test(name) || isWellFormedJwt(value);
    })
    .join("; ");
}

/**
 * Why a request cannot even be turned into a URL, or null. Remix builds
 * `protocol://host` + target: an absolute-form target (`GET http://x/`), a `*`
 * target or a malformed Host would throw there, as a bare 500.
 */
export function unusableTarget(
  target: string,
  host: string | undefined,
  forwardedHost: string | undefined,
): string | null {
  if (!target.startsWith("/")) return "The request target must be a path.";
  if (!host || !HOST_HEADER.test(host)) return "The Host header is missing or malformed.";
  if (forwardedHost !== undefined && !HOST_HEADER.test(forwardedHost))
    return "The X-Forwarded-Host header is malformed.";
  return null;
}

/** Refuses (400, short plain page) requests that cannot be made into a URL; first of all middlewares. */
export function refuseUnusableTargets(): RequestHandler {
  return (req, res, next) => {
    const unusable = unusableTarget(req.originalUrl, req.get("Host"), req.get("X-Forwarded-Host"));
    if (unusable) return refuse(res, 400, "Bad request", unusable, { Connection: "close" });
    next();
  };
}

/**
 * Before Remix reads a byte of the body: refuses other methods (405), bodies
 * over 1 MB (413) or of unknown length (411), with a short plain page; and
 * cleans the Cookie header.
 */
export function requestHygiene(): RequestHandler {
  return (req, res, next) => {
    if (!ALLOWED_METHODS.includes(req.method)) {
      return refuse(res, 405, "Method not allowed", "This address only answers GET and POST.", {
        Allow: ALLOWED_METHODS.join(", "),
      });
    }
    if (req.headers.cookie) req.headers.cookie = sanitizeCookieHeader(req.headers.cookie);
    const length = req.get("Content-Length");
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
      return refuseUnread(res, 413, "Too large", "That request is larger than this site accepts.");
    }
    if (length === undefined && req.get("Transfer-Encoding") !== undefined) {
      return refuse(res, 411, "Length required", "Send the request with its length.", { Connection: "close" });
    }
    next();
  };
}
