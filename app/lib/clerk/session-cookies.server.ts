import { parse, serialize } from "cookie";

const SESSION_COOKIE = /^(__session|__client_uat)(_[A-Za-z0-9-]+)?$/;

/**
 * The session tokens a request's cookies hold, most specific first: clerk-js
 * 5 writes `__session_<suffix>` (its instance's) beside `__session`. Only
 * values shaped like a JWT; whoever reads them verifies them.
 */
export function sessionTokenCookies(request: Request): string[] {
  const cookies = parse(request.headers.get("Cookie") ?? "");
  const suffixed = Object.keys(cookies).filter((name) => name.startsWith("__session_"));
  return [...suffixed, "__session"].map((name) => cookies[name] ?? "").filter((value) => value.split(".").length === 3);
}

/**
 * Set-Cookie values that end Clerk's session cookies on this host: `__session`
 * and `__client_uat`, and their suffixed twins that clerk-js 5 also writes.
 * `__client_uat=0` is how clerk-js itself says "signed out on this client".
 */
export function clearSessionCookies(request: Request): string[] {
  const present = Object.keys(parse(request.headers.get("Cookie") ?? "")).filter((name) => SESSION_COOKIE.test(name));
  const names = new Set(["__session", "__client_uat", ...present]);
  return [...names].map((name) =>
    name.startsWith("__client_uat")
      ? serialize(name, "0", { path: "/", maxAge: 31_536_000, sameSite: "lax" })
      : serialize(name, "", { path: "/", maxAge: 0, sameSite: "lax" }),
  );
}
