import { parse, serialize } from "cookie";

const SESSION_COOKIE = /^(__session|__client_uat)(_[A-Za-z0-9-]+)?$/;

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
