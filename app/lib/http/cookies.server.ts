import { parse } from "cookie";
import { getEnv, isProduction, type Env } from "../env.server";

/** How this app's own signed cookies are made: signed with SESSION_SECRET, sent over HTTPS only in production. */
export type SignedCookieOptions = { secret: string; secure: boolean; now?: () => number };

/** This deployment's SignedCookieOptions. */
export function signedCookieOptions(env: Env = getEnv()): SignedCookieOptions {
  return { secret: env.SESSION_SECRET, secure: isProduction(env) };
}

/** One cookie's value from the request (decoded), or null. */
export function readCookie(request: Request, name: string): string | null {
  return parse(request.headers.get("Cookie") ?? "")[name] ?? null;
}
