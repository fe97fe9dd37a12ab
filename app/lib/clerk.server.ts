import { createClerkClient } from "@clerk/remix/api.server";
import { getEnv } from "./env.server";

let client: ReturnType<typeof createClerkClient> | undefined;

/** Clerk's Backend API client, configured from the validated environment. */
export function getClerkClient() {
  if (!client) {
    const env = getEnv();
    client = createClerkClient({
      secretKey: env.CLERK_SECRET_KEY,
      publishableKey: env.CLERK_PUBLISHABLE_KEY,
      apiUrl: env.CLERK_API_URL,
      jwtKey: env.CLERK_JWT_KEY,
    });
  }
  return client;
}

const SESSION_COOKIE = /^(__session|__client_uat)(_[A-Za-z0-9-]+)?$/;

/**
 * Set-Cookie values that end Clerk's session cookies on this host: `__session`
 * and `__client_uat`, and their suffixed twins that clerk-js 5 also writes.
 */
export function clearSessionCookies(request: Request): string[] {
  const names = (request.headers.get("Cookie") ?? "")
    .split(";")
    .map((part) => part.split("=")[0]?.trim() ?? "")
    .filter((name) => SESSION_COOKIE.test(name));
  const unique = new Set(["__session", "__client_uat", ...names]);
  return [...unique].map((name) =>
    name.startsWith("__client_uat")
      ? `${name}=0; Path=/; Max-Age=31536000; SameSite=Lax`
      : `${name}=; Path=/; Max-Age=0; SameSite=Lax`,
  );
}
