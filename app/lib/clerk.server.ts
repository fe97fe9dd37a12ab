import { createClerkClient } from "@clerk/remix/api.server";
import { getEnv } from "./env.server";
import { readUpstream, writeUpstream } from "./upstream-request.server";

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

type ClerkClient = ReturnType<typeof getClerkClient>;

/** A Backend API read under the upstream policy (retried, deduplicated by `key` within the request). */
export function clerkRead<T>(request: Request, name: string, key: string, read: (clerk: ClerkClient) => Promise<T>) {
  return readUpstream(request, `clerk.${name}`, key, () => read(getClerkClient()));
}

/** A Backend API write: tried once, a 503 response if Clerk is unavailable. */
export function clerkWrite<T>(request: Request, name: string, write: (clerk: ClerkClient) => Promise<T>) {
  return writeUpstream(request, `clerk.${name}`, () => write(getClerkClient()));
}

type ClerkErrorEntry = { code?: string; message?: string; longMessage?: string; meta?: { paramName?: string } };

/**
 * Field messages from a Backend API 4xx (for example a taken slug or a
 * duplicate invitation), keyed by our form's field names; `null` for anything
 * else, which the caller rethrows.
 */
export function clerkFieldErrors(error: unknown, fields: Record<string, string>): Record<string, string> | null {
  if (typeof error !== "object" || error === null || (error as { clerkError?: unknown }).clerkError !== true) return null;
  const { status, errors } = error as { status?: number; errors?: ClerkErrorEntry[] };
  if (typeof status !== "number" || status < 400 || status >= 500 || status === 401 || status === 429) return null;
  const messages: Record<string, string> = {};
  for (const entry of errors ?? []) {
    const field = fields[entry.meta?.paramName ?? ""] ?? "form";
    messages[field] ??= entry.longMessage || entry.message || "Please check this value.";
  }
  return Object.keys(messages).length ? messages : { form: "Clerk refused this request. Please check the values." };
}
