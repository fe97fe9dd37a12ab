/**
 * Failures by kind, for every phase: an answer that was not what the phase
 * wanted is counted by its status ("503 with Retry-After", "429", "500"), and
 * a request that got no answer by what happened to it ("reset", "closed by
 * the server", "timeout", "connection refused"…), never lumped together as
 * "errors" or "no answer". Each phase then says which kinds it expects (a
 * 503 with Retry-After where the budget or load shedding may answer one);
 * any other kind is recorded here, and the bench ends non-zero, listing them.
 */
import type { EventEmitter } from "node:events";
import { SHED_TITLE } from "../server/load-shedding";

/** Answers that were not the phase's success, and requests that got none, by kind. */
export type Failures = Record<string, number>;

export const countFailure = (failures: Failures, kind: string) => void (failures[kind] = (failures[kind] ?? 0) + 1);

export const failureCount = (failures: Failures) => Object.values(failures).reduce((sum, n) => sum + n, 0);

export const describeFailures = (failures: Failures) =>
  Object.entries(failures)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${n.toLocaleString("en")} × ${kind}`)
    .join(", ") || "none";

/** Merges `more` into `into` (a phase's rounds, say). */
export function addFailures(into: Failures, more: Failures): Failures {
  for (const [kind, n] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + n;
  return into;
}

/**
 * What happened to a request that got no answer, from Node's own codes
 * (fetch's are undici's, on the error's `cause`; autocannon's are the
 * socket's, or its own "request timed out").
 */
export function errorKind(error: unknown): string {
  const err = error as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.cause?.code ?? err?.code;
  switch (code) {
    case "ECONNRESET":
    case "EPIPE":
      return "reset";
    case "ECONNREFUSED":
      return "connection refused";
    case "UND_ERR_SOCKET":
      // undici: the server closed the connection before the answer's end ("other side closed").
      return "closed by the server";
    case "UND_ERR_CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return "connect timeout";
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return "timeout";
  }
  if (err?.name === "TimeoutError" || err?.message === "request timed out") return "timeout";
  return `other (${code ?? err?.cause?.message ?? err?.message ?? String(error)})`;
}

/**
 * An answer's kind: its status, a 429 or 503 with or without `Retry-After`,
 * and the load shedder's 503 (its page's title) apart from the app's own.
 */
export function answerKind(status: number, headers: Headers, body = ""): string {
  if (status !== 429 && status !== 503) return String(status);
  const shed = status === 503 && body.includes(SHED_TITLE) ? " shed" : "";
  return `${status}${shed} ${headers.get("retry-after") ? "with" : "without"} Retry-After`;
}

/**
 * One request by fetch, read to its end: its answer's kind (`answerKind`),
 * or what happened to it (`errorKind`); "timeout" past `timeoutMs`, always:
 * the time-out is a timer of its own, raced with the request (a run with
 * `AbortSignal.timeout` alone hung for minutes on a request undici never
 * settled, and held the whole phase).
 */
export async function outcome(
  url: string,
  init: RequestInit = {},
  timeoutMs = 30_000,
): Promise<{ status: number | null; kind: string }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ status: null; kind: string }>((done) => {
    timer = setTimeout(() => {
      controller.abort();
      done({ status: null, kind: "timeout" });
    }, timeoutMs);
  });
  const answered = (async () => {
    try {
      const res = await fetch(url, { redirect: "manual", ...init, signal: controller.signal });
      const body = await res.text();
      return { status: res.status, kind: answerKind(res.status, res.headers, body) };
    } catch (error) {
      return { status: null, kind: errorKind(error) };
    }
  })();
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An autocannon run's failures by kind: answers not 2xx by status (it gives
 * no headers), requests without an answer by `errorKind`. Call before the
 * run starts (it is an event emitter as well as a promise); read once it ends.
 */
export function watchAutocannon(instance: PromiseLike<unknown>): { failures(result: AutocannonCounts): Failures } {
  const errors: Failures = {};
  // autocannon's run is a promise and, its types aside, the event emitter of its requests.
  (instance as unknown as EventEmitter).on("reqError", (error: unknown) => countFailure(errors, errorKind(error)));
  return {
    failures(result) {
      const failures: Failures = { ...errors };
      for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
        const count = stats?.count;
        if (!status.startsWith("2")) failures[status] = (failures[status] ?? 0) + (count ?? 0);
      }
      return failures;
    },
  };
}

type AutocannonCounts = { statusCodeStats?: Partial<Record<string, { count?: number }>> };

/** The failures no phase expected, with the phase that met them, for the bench's last word. */
const unexpected: string[] = [];

/**
 * Judges a phase's failures: each kind `expected` does not accept is
 * recorded (the bench then ends non-zero, listing them) and the line says
 * so. Returns the phase's line: its failures by kind, and the verdict.
 */
export function judgeFailures(phase: string, failures: Failures, expected: (kind: string) => boolean = () => false) {
  const surprises = Object.fromEntries(Object.entries(failures).filter(([kind]) => !expected(kind)));
  if (failureCount(surprises) > 0) unexpected.push(`${phase}: ${describeFailures(surprises)}`);
  const verdict = failureCount(surprises) === 0 ? "none unexpected" : `UNEXPECTED: ${describeFailures(surprises)}`;
  return `${phase}: failures ${describeFailures(failures)} (${verdict})`;
}

/** What `judgeFailures` found unexpected so far. */
export const unexpectedFailures = () => [...unexpected];

/** Kinds a phase may expect: an honest wait, a 503 (the budget's or the shedder's) or 429 that says when to come back. */
export const honestWait = (kind: string) => /^(503|503 shed|429) with Retry-After$/.test(kind);
