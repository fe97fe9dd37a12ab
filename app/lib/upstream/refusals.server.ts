import { json } from "@remix-run/node";
import { OverAllowanceError, UPSTREAM_POLICY, UpstreamUnavailableError } from "./policy.server";

/*
 * What a page, a form or a cache is told when an upstream gave no answer
 * (a 503, or a person's own 429), and where the call that failed was made:
 * kept apart from the request's scope (request-scope.server), so that what
 * reads these needs nothing of the load context.
 */

export const UNAVAILABLE_MESSAGE = "This service is temporarily unavailable. Please try again in a moment.";

/** What a person past their own allowance of Clerk calls is told. */
export function overAllowanceMessage(seconds: number): string {
  return `You have asked for a lot in a short while. Please wait ${seconds} second${seconds === 1 ? "" : "s"} and try again.`;
}

/** The responses `unavailable` made: the 503s, and the 429s of a spent allowance. */
const refusals = new WeakSet<Response>();

/**
 * The catalogue's 503 for an upstream that gave up (what the error page
 * shows, with `Retry-After`), or the person's own 429 when their allowance
 * of Clerk calls is spent; anything else rethrown.
 */
export function unavailable(context: { retryAfter: { seconds: number | null } }, error: unknown): never {
  if (error instanceof UpstreamUnavailableError) {
    const seconds = error.retryAfterSeconds;
    context.retryAfter.seconds = seconds;
    const over = error instanceof OverAllowanceError;
    const response = json(
      { message: over ? overAllowanceMessage(seconds) : UNAVAILABLE_MESSAGE },
      { status: over ? 429 : 503, headers: { "Retry-After": String(seconds) } },
    );
    refusals.add(response);
    throw response;
  }
  throw error;
}

/**
 * True for what `readUpstream`/`writeUpstream` throw when no answer came:
 * the 503 once an upstream has given up (or the fleet's budget is spent),
 * and the 429 of a person's spent allowance. Either way nothing was done,
 * and the page or form can say so and keep what was typed.
 */
export function isUnavailable(error: unknown): error is Response {
  return error instanceof Response && (error.status === 503 || refusals.has(error));
}

/** The message of such a refusal, for a form that keeps what was typed: the 503's or the 429's. */
export function refusalMessage(error: Response): string {
  if (error.status !== 429) return UNAVAILABLE_MESSAGE;
  return overAllowanceMessage(Number(error.headers.get("Retry-After") ?? UPSTREAM_POLICY.unavailableRetryAfterSeconds));
}

// Kept on the error itself: server.ts's bundle and the app's each hold a copy of this module.
const CALL_SITE = Symbol.for("teamwork.upstreamCallSite");

/**
 * Where the app made a call, kept in case it fails: an SDK's error stack ends
 * in the retry loop, while this one (V8 keeps `async` frames) leads back to
 * the loader or action that asked.
 */
export function callSite(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  const site = new Error("upstream call");
  Error.stackTraceLimit = limit;
  return site;
}

export function remember(site: Error, error: unknown, { over = false } = {}): never {
  if (typeof error === "object" && error !== null && (over || !Object.hasOwn(error, CALL_SITE))) {
    Object.defineProperty(error, CALL_SITE, { value: site, enumerable: false, configurable: true });
  }
  throw error;
}

/**
 * Runs `read`, whose upstream call may start after an `await` (a cache looks
 * in its store first), keeping the frames of the code that asked now: after
 * the `await`, the loader is no longer on the stack.
 */
export function keepingCallSite<T>(read: () => Promise<T>): Promise<T> {
  const site = callSite();
  return read().catch((error: unknown) => remember(site, error, { over: true }));
}

/** The stack frames of the app's code that made the upstream call `error` came from, if any. */
export function upstreamCallFrames(error: unknown): string[] {
  const site: unknown = typeof error === "object" && error !== null ? Reflect.get(error, CALL_SITE) : undefined;
  const stack = site instanceof Error ? (site.stack ?? "") : "";
  return stack
    .split("\n")
    .filter((line) => line.trim().startsWith("at "))
    .slice(1);
}
