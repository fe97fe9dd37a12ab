import { logEvent, type LogFields } from "../log.server";
import type { AttemptOutcome } from "../metrics.server";
import { waiterCopy } from "../waiter-copy.server";

/**
 * How every server-side call to another service behaves. One policy, here:
 * reads are retried up to 3 times after the first attempt (at most 4) on a 5xx,
 * a failed connection or a time-out, never on a 4xx; writes are tried once
 * unless they carry an idempotency key. The delay before retry n is full
 * jitter, random(0, min(maxDelay, base·2^(n-1))), or the upstream's
 * Retry-After when that is longer, up to a cap. A page load never waits on
 * upstreams longer than `deadlineMs`.
 */
export const UPSTREAM_POLICY = {
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  retryAfterCapMs: 2_000,
  attemptTimeoutMs: 3_000,
  deadlineMs: 8_000,
  /** What the 503 page tells browsers when the upstream named no time. */
  unavailableRetryAfterSeconds: 5,
};

export type UpstreamPolicy = typeof UPSTREAM_POLICY;

/** How a failed attempt is judged: `null` means "not an upstream failure", rethrown at once. */
export type Failure = { retryable: boolean; status: number | "network" | "timeout"; retryAfterMs?: number };

/** A 5xx answer to a raw `fetch`, thrown so that the policy can retry it. */
export class UpstreamHttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {
    super(`upstream answered ${status}`);
  }
}

export class UpstreamTimeoutError extends Error {
  constructor(readonly afterMs: number) {
    super(`upstream did not answer within ${afterMs} ms`);
  }
}

/** The upstream kept failing after every allowed attempt, or the deadline came. */
export class UpstreamUnavailableError extends Error {
  constructor(
    readonly upstream: string,
    readonly attempts: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`${upstream} unavailable after ${attempts} attempt(s)`);
  }
}

/**
 * No call made: the person or client whose request it was has spent their
 * own allowance of Clerk calls (call-budget.server). Their own 429, not the
 * catalogue's 503: nobody else is refused.
 */
export class OverAllowanceError extends UpstreamUnavailableError {
  constructor(upstream: string, retryAfterSeconds: number) {
    super(upstream, 0, retryAfterSeconds);
    this.message = `${upstream}: this payer's allowance of calls is spent`;
  }
}

export type CallOptions = {
  /** False for writes without an idempotency key: one attempt only. */
  retry?: boolean;
  /** Absolute time (ms, same clock as `now`) after which no attempt starts or continues. */
  deadline?: number;
  classify?: (error: unknown) => Failure | null;
  policy?: Partial<UpstreamPolicy>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: (fields: LogFields) => void;
  /** Each attempt's outcome, for metrics (not called for errors that are not upstream failures). */
  onAttempt?: (outcome: AttemptOutcome, seconds: number | null) => void;
  /**
   * Asked before every attempt, retries included (each is a call the upstream
   * counts): throws `UpstreamUnavailableError` to make none (the fleet's
   * budget of Clerk calls is spent, or `OverAllowanceError`: the payer's
   * allowance is), which ends the call at once, unretried.
   */
  beforeAttempt?: () => Promise<void>;
};

export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Raw fetch failures, our time-outs and Clerk SDK errors (which carry `status`, none for network failures). */
export function classifyFailure(error: unknown): Failure | null {
  if (error instanceof UpstreamHttpError) {
    return { retryable: error.status >= 500, status: error.status, retryAfterMs: error.retryAfterMs };
  }
  if (error instanceof UpstreamTimeoutError) return { retryable: true, status: "timeout" };
  if (error instanceof TypeError && error.message === "fetch failed") return { retryable: true, status: "network" };
  if (typeof error === "object" && error !== null && (error as { clerkError?: unknown }).clerkError === true) {
    const { status, retryAfter } = error as { status?: number; retryAfter?: number };
    if (typeof status !== "number") return { retryable: true, status: "network" };
    const retryAfterMs = typeof retryAfter === "number" ? retryAfter * 1000 : undefined;
    return { retryable: status >= 500, status, retryAfterMs };
  }
  return null;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(attempt: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new UpstreamTimeoutError(ms);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  // An SDK call cannot be aborted; the race abandons it instead.
  return Promise.race([attempt(controller.signal), timedOut]).finally(() => clearTimeout(timer));
}

/**
 * Runs `attempt` under the policy. Returns its value, rethrows a failure that
 * is not retryable (a 4xx, a bug), or throws `UpstreamUnavailableError`.
 */
export async function callUpstream<T>(
  upstream: string,
  attempt: (signal: AbortSignal) => Promise<T>,
  options: CallOptions = {},
): Promise<T> {
  const policy = { ...UPSTREAM_POLICY, ...options.policy };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const log = options.log ?? ((fields: LogFields) => logEvent("upstream", fields));
  const classify = options.classify ?? classifyFailure;
  const onAttempt = options.onAttempt ?? (() => undefined);
  const deadline = options.deadline ?? now() + policy.deadlineMs;
  const maxAttempts = options.retry === false ? 1 : policy.retries + 1;
  const giveUp = (attempts: number, retryAfterMs?: number) =>
    new UpstreamUnavailableError(
      upstream,
      attempts,
      retryAfterMs ? Math.ceil(retryAfterMs / 1000) : policy.unavailableRetryAfterSeconds,
    );

  for (let n = 1; ; n++) {
    const remaining = deadline - now();
    if (remaining <= 0) {
      log({ upstream, attempt: n, status: "deadline", duration_ms: 0, outcome: "give-up" });
      onAttempt("gave_up", null);
      throw giveUp(n - 1);
    }
    if (options.beforeAttempt) {
      try {
        await options.beforeAttempt();
      } catch (error) {
        if (error instanceof UpstreamUnavailableError) {
          const over = error instanceof OverAllowanceError ? "allowance" : "budget";
          log({ upstream, attempt: n, status: `over-${over}`, duration_ms: 0, outcome: "give-up" });
          onAttempt(`over_${over}`, null);
        }
        throw error;
      }
    }
    const started = now();
    try {
      const value = await withTimeout(attempt, Math.min(policy.attemptTimeoutMs, remaining));
      log({ upstream, attempt: n, status: "ok", duration_ms: now() - started, outcome: "ok" });
      onAttempt("ok", (now() - started) / 1000);
      return value;
    } catch (error) {
      const failure = classify(error);
      const fields = { upstream, attempt: n, status: failure?.status ?? "error", duration_ms: now() - started };
      const seconds = fields.duration_ms / 1000;
      if (!failure?.retryable) {
        log({ ...fields, outcome: "fail" });
        if (failure) onAttempt("client_error", seconds);
        throw error;
      }
      const jitter = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
      const delay = Math.max(jitter, Math.min(failure.retryAfterMs ?? 0, policy.retryAfterCapMs));
      if (n >= maxAttempts || now() + delay >= deadline) {
        log({ ...fields, outcome: "give-up" });
        onAttempt("gave_up", seconds);
        throw giveUp(n, failure.retryAfterMs);
      }
      log({ ...fields, outcome: "retry", delay_ms: Math.round(delay) });
      onAttempt(failure.status === "timeout" ? "timed_out" : "retried", seconds);
      await sleep(delay);
    }
  }
}

/**
 * `fetch` under the policy. A 5xx is retried (for reads) and, when it lasts,
 * becomes `UpstreamUnavailableError`; any other answer is returned as it is,
 * a 3xx included: redirects are not followed unless `init.redirect` says so,
 * since where a call goes is the caller's to decide (and check), not the
 * upstream's.
 */
export function fetchWithRetry(upstream: string, url: string | URL, init: RequestInit = {}, options: CallOptions = {}) {
  const method = (init.method ?? "GET").toUpperCase();
  const idempotent = method === "GET" || method === "HEAD" || new Headers(init.headers).has("Idempotency-Key");
  return callUpstream(
    upstream,
    async (signal) => {
      const response = await fetch(url, { redirect: "manual", ...init, signal });
      if (response.status >= 500) {
        await response.body?.cancel();
        throw new UpstreamHttpError(response.status, parseRetryAfter(response.headers.get("Retry-After")));
      }
      return response;
    },
    { retry: idempotent, ...options },
  );
}

/** Makes concurrent (and later) identical calls share one promise. */
export function createDeduper() {
  const inflight = new Map<string, Promise<unknown>>();
  return function once<T>(key: string, run: () => Promise<T>): Promise<T> {
    let promise = inflight.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = run();
      inflight.set(key, promise);
    }
    return waiterCopy(promise);
  };
}
