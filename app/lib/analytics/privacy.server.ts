import { serialize } from "cookie";
import { readCookie } from "../http/cookies.server";

export const ANALYTICS_OPT_OUT_COOKIE = "analytics_opt_out";

export function hasOptedOut(request: Request): boolean {
  return readCookie(request, ANALYTICS_OPT_OUT_COOKIE) === "1";
}

/** Do Not Track, Global Privacy Control, or our own opt-out cookie: then no analytics at all. */
export function analyticsAllowed(request: Request): boolean {
  if (request.headers.get("DNT") === "1" || request.headers.get("Sec-GPC") === "1") return false;
  return !hasOptedOut(request);
}

/** The Set-Cookie value that records (for a year) or clears a person's analytics opt-out. */
export function optOutCookie(optOut: boolean, secure: boolean): string {
  return serialize(ANALYTICS_OPT_OUT_COOKIE, optOut ? "1" : "", {
    path: "/",
    sameSite: "lax",
    httpOnly: true,
    secure,
    maxAge: optOut ? 31_536_000 : 0,
  });
}
