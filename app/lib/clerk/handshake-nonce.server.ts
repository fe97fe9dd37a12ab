import { json, type AppLoadContext } from "@remix-run/node";
import { parse, serialize } from "cookie";
import { signedCookieOptions } from "../http/cookies.server";
import { clerkRead } from "./backend-calls.server";
import { isClerkNotFound } from "./field-errors.server";
import { checkHandshakeBinding } from "./handshake-binding.server";
import { payerKey, type Payer } from "../upstream/payer.server";

/**
 * Clerk's handshake brings the browser back with a nonce (in the URL, or a
 * cookie), and the cookies to set are read from Clerk's Backend API with it:
 * one call per request that carries one. Left to Clerk's SDK, any request
 * with a made-up nonce cost that call, outside the upstream policy, and the
 * SDK swallowed Clerk's 429. Here the SDK never sees a nonce: the app reads
 * the payload itself, under the policy (retried, held back after a 429 on
 * every instance), only for a document GET, and charged to whoever the
 * return is (`payer`): the person whose session token of Clerk's the
 * browser still carries (a real return: the handshake was for its expired
 * token), else the client's address, whose allowance is small (five a
 * minute) and draws from the pool of all anonymous work. So made-up nonces,
 * from any number of addresses, spend only that pool, and a person's real
 * return is paid from their own allowance, which nobody else can spend.
 *
 * And only a return bound to this browser is read (handshake-binding.server):
 * a nonce or handshake token handed over in a link is dropped, unread.
 */
export const HANDSHAKE_NONCE = "__clerk_handshake_nonce";
/** Clerk's handshake token in the return URL: its cookies, signed, which Clerk's SDK would set without a call. */
const HANDSHAKE_TOKEN = "__clerk_handshake";

/** What a nonce of Clerk's looks like (the emulator's `hsn_…`, Clerk's opaque ids). */
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;

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
  { documentGet, payer }: { documentGet: boolean; payer: () => Promise<Payer> },
): Promise<ResolvedHandshake> {
  const url = new URL(request.url);
  const cookieHeader = request.headers.get("Cookie") ?? "";
  const nonce = url.searchParams.get(HANDSHAKE_NONCE) ?? parse(cookieHeader)[HANDSHAKE_NONCE] ?? null;
  const token = url.searchParams.get(HANDSHAKE_TOKEN);
  if (nonce === null && token === null) return { request, directives: null };
  url.searchParams.delete(HANDSHAKE_NONCE);
  let cookies = withoutCookies(cookieHeader, new Set([HANDSHAKE_NONCE]));
  let directives: string[] | null = null;
  // Only a document GET that this browser's own redirect to Clerk started is read (or shown to Clerk's SDK).
  const binding = documentGet
    ? await checkHandshakeBinding(request, context.handshakeClaims, signedCookieOptions())
    : null;
  if (!binding?.bound) url.searchParams.delete(HANDSHAKE_TOKEN);
  if (binding?.bound && nonce !== null && NONCE.test(nonce)) {
    context.payer = await payer();
    if (await missedTooOften(context)) throw tooManySignIns(60);
    directives = await handshakeDirectives(context, nonce);
    const set = directives.map(cookieOf).filter((c): c is { name: string; value: string } => c !== null);
    cookies = withoutCookies(cookies, new Set(set.map((c) => c.name)));
    const added = set.filter((c) => c.value !== "").map((c) => `${c.name}=${c.value}`);
    cookies = [cookies, ...added].filter(Boolean).join("; ");
  }
  if (binding) {
    directives ??= [];
    // The nonce's cookie, if it came as one, is spent; so is the state's, bound or not.
    if (parse(cookieHeader)[HANDSHAKE_NONCE] !== undefined)
      directives.push(serialize(HANDSHAKE_NONCE, "", { path: "/", maxAge: 0 }));
    if (binding.end) directives.push(binding.end);
  }
  const headers = new Headers(request.headers);
  if (cookies) headers.set("Cookie", cookies);
  else headers.delete("Cookie");
  return { request: new Request(url, { method: request.method, headers }), directives };
}

/** Whether the payer's nonces missed too often lately to be read again this minute (rate-limit.server's `handshake-misses`). */
function missedTooOften(context: AppLoadContext): Promise<boolean> {
  return context.rateLimiter.spent("handshake-misses", payerKey(context.payer)).catch(() => false);
}

/** Clerk's cookies for a nonce; none for one Clerk does not know (made up, or expired), as the SDK answers. */
async function handshakeDirectives(context: AppLoadContext, nonce: string): Promise<string[]> {
  try {
    const payload = await clerkRead(context, "clients.getHandshakePayload", nonce, (clerk) =>
      clerk.clients.getHandshakePayload({ nonce }),
    );
    return Array.isArray(payload.directives) ? payload.directives.filter((d) => typeof d === "string") : [];
  } catch (error) {
    if (isClerkNotFound(error) || isClerkClientError(error)) {
      // A miss: counted against its payer (a real return never misses).
      await context.rateLimiter.consume("handshake-misses", payerKey(context.payer)).catch(() => undefined);
      return [];
    }
    if (error instanceof Response && error.status === 429) {
      // The payer's allowance is spent (an address's five a minute, or the anonymous pool).
      throw tooManySignIns(Number(error.headers.get("Retry-After")) || 60);
    }
    throw error;
  }
}

/** The 429 of a payer whose handshake returns may not be read now: a page that says so, and when to reload. */
function tooManySignIns(retryAfterSeconds: number): Response {
  return json(
    { message: "Too many sign-ins from here at once. Please wait a minute and reload the page." },
    { status: 429, headers: { "Retry-After": String(retryAfterSeconds) } },
  );
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
