import { parse, serialize } from "cookie";

const SESSION_COOKIE = /^(__session|__client_uat)(_[A-Za-z0-9-]+)?$/;
/** A session token's cookie: `__session`, or clerk-js's twin suffixed with an instance's. */
const SESSION_TOKEN_COOKIE = /^__session(_[A-Za-z0-9-]+)?$/;
/** Where Clerk's handshake brings its signed cookies back (a query parameter, or a cookie). */
const HANDSHAKE = "__clerk_handshake";

/** Whether a `Cookie` header carries a session token's cookie (any instance's, valid or not): someone may be signed in. */
export function carriesSessionToken(cookieHeader: string | undefined): boolean {
  return Object.entries(parse(cookieHeader ?? "")).some(([name, value]) => value && SESSION_TOKEN_COOKIE.test(name));
}

/**
 * The session token a request's cookies hold, as Clerk's rules pick it: this
 * instance's suffixed cookie, else `__session`. Any other `__session_*` is
 * another instance's, and never read. Null without a JWT-shaped one.
 */
export function sessionTokenCookie(request: Request, suffix: string): string | null {
  const cookies = parse(request.headers.get("Cookie") ?? "");
  const token = cookies[`__session_${suffix}`] || cookies.__session;
  return token && token.split(".").length === 3 ? token : null;
}

/**
 * The request as Clerk's SDK is to see it: without the tokens it would
 * verify (the session cookies it reads, the handshake's) that no key of
 * Clerk's signed (`signedByClerk`), and without an `Authorization` header
 * (this app's sessions are cookies; Clerk would take a header's token, or
 * a machine token it asks its Backend API about, first). What is left costs
 * Clerk's SDK no call to verify, whatever the request carried. No body.
 * `token` is the session token left, as Clerk's rules pick it; `forged`
 * says the request's session tokens were all dropped, so that it is
 * answered as Clerk answers a bad signature (signed out), not as a browser
 * that has no token (a handshake).
 */
export async function withoutForgedTokens(
  request: Request,
  suffix: string,
  signedByClerk: (token: string) => Promise<boolean>,
): Promise<{ request: Request; token: string | null; forged: boolean }> {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  headers.delete("Authorization");
  const cookieHeader = headers.get("Cookie") ?? "";
  const cookies = parse(cookieHeader);
  // clerk-js writes one token to both session cookies: each value is checked once.
  const checks = new Map<string, Promise<boolean>>();
  const isForged = async (token: string | undefined) => {
    if (!token) return false;
    if (!checks.has(token)) checks.set(token, signedByClerk(token));
    return !(await checks.get(token));
  };
  const names = ["__session", `__session_${suffix}`, HANDSHAKE];
  const [queryForged, ...cookiesForged] = await Promise.all([
    isForged(url.searchParams.get(HANDSHAKE) ?? undefined),
    ...names.map((name) => isForged(cookies[name])),
  ]);
  if (queryForged) url.searchParams.delete(HANDSHAKE);
  const dropped = new Set(names.filter((_, i) => cookiesForged[i]));
  if (dropped.size > 0) {
    const kept = cookieHeader.split(";").filter((pair) => !dropped.has(pair.slice(0, pair.indexOf("=")).trim()));
    headers.set("Cookie", kept.join(";"));
  }
  const shown = new Request(url, { method: request.method, headers });
  const token = sessionTokenCookie(shown, suffix);
  const droppedSession = dropped.has("__session") || dropped.has(`__session_${suffix}`);
  return { request: shown, token, forged: droppedSession && token === null };
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
