import { json } from "@remix-run/node";
import { callUpstream, createDeduper, UPSTREAM_POLICY, UpstreamUnavailableError } from "./upstream.server";

type Scope = { deadline: number; once: ReturnType<typeof createDeduper> };

// One scope per incoming request: a shared deadline for all its upstream calls,
// and identical concurrent reads made once. Nothing outlives the request.
const scopes = new WeakMap<Request, Scope>();

function scopeOf(request: Request): Scope {
  let scope = scopes.get(request);
  if (!scope) {
    scope = { deadline: Date.now() + UPSTREAM_POLICY.deadlineMs, once: createDeduper() };
    scopes.set(request, scope);
  }
  return scope;
}

export const UNAVAILABLE_MESSAGE = "This service is temporarily unavailable. Please try again in a moment.";

/** The catalogue's 503: what the error page shows, with `Retry-After`. */
function unavailable(error: unknown): never {
  if (error instanceof UpstreamUnavailableError) {
    throw json(
      { message: UNAVAILABLE_MESSAGE },
      { status: 503, headers: { "Retry-After": String(error.retryAfterSeconds) } },
    );
  }
  throw error;
}

/** True for the 503 that `readUpstream`/`writeUpstream` throw once an upstream has given up. */
export function isUnavailable(error: unknown): error is Response {
  return error instanceof Response && error.status === 503;
}

/**
 * A read on behalf of `request`: retried under the policy, deduplicated by
 * `key` within the request, and a 503 response when the upstream gives up.
 */
export function readUpstream<T>(request: Request, upstream: string, key: string, read: () => Promise<T>): Promise<T> {
  const scope = scopeOf(request);
  return scope
    .once(`${upstream} ${key}`, () => callUpstream(upstream, read, { deadline: scope.deadline }))
    .catch(unavailable);
}

/** A write: tried once (it has no idempotency key), a 503 response if the upstream fails. */
export function writeUpstream<T>(request: Request, upstream: string, write: () => Promise<T>): Promise<T> {
  return callUpstream(upstream, write, { retry: false, deadline: scopeOf(request).deadline }).catch(unavailable);
}
