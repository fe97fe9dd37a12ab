import { json, type AppLoadContext } from "@remix-run/node";
import { parse, serialize } from "cookie";
import { clerkRead } from "./backend-calls.server";
import { isClerkNotFound } from "./field-errors.server";

/**
 * Clerk's handshake brings the browser back with a nonce (in the URL, or a
 * cookie), and the cookies to set are read from Clerk's Backend API with it:
 * one call per request that carries one. Left to Clerk's SDK, any request
 * with a made-up nonce cost that call, outside the upstream policy, and the
 * SDK swallowed Clerk's 429. Here the SDK never sees a nonce: the app reads
 * the payload itself, under the policy (retried, held back after a 429 on
 * every instance), only for a document GET, at most so often per client and
 * per instance, and shows the SDK the cookies it brought.
 */
export const HANDSHAKE_NONCE = "__clerk_handshake_nonce";

/** Handshakes honoured per window: per client address, and for the whole instance. */
export const HANDSHAKE_LIMITS = { perClient: 5, perInstance: 60, windowMs: 60_000 };
/** Clients counted at once; past it, new addresses share one count (memory stays bounded whatever is sent). */
const MAX_CLIENTS = 10_000;
const OVERFLOW = "\u0000overflow";
/** What a nonce of Clerk's looks like (the emulator's `hsn_…`, Clerk's opaque ids). */
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;

export type HandshakeThrottle = {
  /** Counts one handshake for `client`: false once this client, or this instance, had its share of the window. */
  allow(client: string): { allowed: true } | { allowed: false; retryAfterSeconds: number };
};

/** Fixed windows in memory: per instance on purpose (the budget is Clerk's, per call made here). */
export function createHandshakeThrottle(now = Date.now, limits = HANDSHAKE_LIMITS): HandshakeThrottle {
  let windowStart = now();
  let total = 0;
  let perClient = new Map<string, number>();
  return {
    allow(client) {
      if (now() - windowStart >= limits.windowMs) {
        windowStart = now();
        total = 0;
        perClient = new Map();
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + limits.windowMs - now()) / 1000));
      const key = perClient.has(client) || perClient.size < MAX_CLIENTS ? client : OVERFLOW;
      const used = perClient.get(key) ?? 0;
      if (used >= limits.perClient || total >= limits.perInstance) return { allowed: false, retryAfterSeconds };
      perClient.set(key, used + 1);
      total += 1;
      return { allowed: true };
    },
  };
}

/** What a request's handshake nonce comes to: the request without it, and the cookies Clerk sent with it. */
export type ResolvedHandshake = {
  request: Request;
  /** Clerk's Set-Cookie directives, for the answer; null when no nonce was honoured. */
  directives: string[] | null;
};

/**
 * The request without its handshake nonce (query and cookie), and, for a
 * document GET within the limits, Clerk's cookies read with it and put in
 * its Cookie header, as the SDK would have. Throws the catalogue's 429 past
 * the limits, and 503 (through the policy) when Clerk cannot answer.
 */
export async function resolveHandshakeNonce(
  context: AppLoadContext,
  request: Request,
  { documentGet }: { documentGet: boolean },
): Promise<ResolvedHandshake> {
  const url = new URL(request.url);
  const cookieHeader = request.headers.get("Cookie") ?? "";
  const nonce = url.searchParams.get(HANDSHAKE_NONCE) ?? parse(cookieHeader)[HANDSHAKE_NONCE] ?? null;
  if (nonce === null) return { request, directives: null };
  url.searchParams.delete(HANDSHAKE_NONCE);
  let cookies = withoutCookies(cookieHeader, new Set([HANDSHAKE_NONCE]));
  let directives: string[] | null = null;
  if (documentGet && NONCE.test(nonce)) {
    const throttle = context.handshakes.allow(context.clientIp);
    if (!throttle.allowed) {
      context.retryAfter.seconds = throttle.retryAfterSeconds;
      throw json(
        { message: "Too many sign-ins from here at once. Please wait a minute and reload the page." },
        { status: 429, headers: { "Retry-After": String(throttle.retryAfterSeconds) } },
      );
    }
    directives = await handshakeDirectives(context, nonce);
    const set = directives.map(cookieOf).filter((c): c is { name: string; value: string } => c !== null);
    cookies = withoutCookies(cookies, new Set(set.map((c) => c.name)));
    const added = set.filter((c) => c.value !== "").map((c) => `${c.name}=${c.value}`);
    cookies = [cookies, ...added].filter(Boolean).join("; ");
    // The nonce's cookie, if it came as one, is spent.
    if (parse(cookieHeader)[HANDSHAKE_NONCE] !== undefined)
      directives.push(serialize(HANDSHAKE_NONCE, "", { path: "/", maxAge: 0 }));
  }
  const headers = new Headers(request.headers);
  if (cookies) headers.set("Cookie", cookies);
  else headers.delete("Cookie");
  return { request: new Request(url, { method: request.method, headers }), directives };
}

/** Clerk's cookies for a nonce; none for one Clerk does not know (made up, or expired), as the SDK answers. */
async function handshakeDirectives(context: AppLoadContext, nonce: string): Promise<string[]> {
  try {
    const payload = await clerkRead(context, "clients.getHandshakePayload", nonce, (clerk) =>
      clerk.clients.getHandshakePayload({ nonce }),
    );
    return Array.isArray(payload.directives) ? payload.directives.filter((d) => typeof d === "string") : [];
  } catch (error) {
    if (isClerkNotFound(error) || isClerkClientError(error)) return [];
    throw error;
  }
}

function isClerkClientError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 500 && status !== 429;
}

/** A Set-Cookie directive's name and value. */
function cookieOf(directive: string): { name: string; value: string } | null {
  const pair = directive.split(";", 1)[0] ?? "";
  const eq = pair.indexOf("=");
  if (eq <= 0) return null;
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
}

function withoutCookies(header: string, names: Set<string>): string {
  return header
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair && !names.has(pair.slice(0, pair.indexOf("=")).trim()))
    .join("; ");
}
