import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogFields } from "~/lib/log.server";
import {
  UPSTREAM_POLICY,
  UpstreamHttpError,
  UpstreamUnavailableError,
  callUpstream,
  createDeduper,
  fetchWithRetry,
  parseRetryAfter,
  type CallOptions,
} from "~/lib/upstream/policy.server";

/** A controllable clock: sleeping advances time at once and records the delay. */
function fakeClock(random = 1) {
  let time = 0;
  const delays: number[] = [];
  const logs: LogFields[] = [];
  const options: CallOptions = {
    now: () => time,
    sleep: async (ms) => {
      delays.push(ms);
      time += ms;
    },
    random: () => random,
    log: (fields) => logs.push(fields),
  };
  return { options, delays, logs, advance: (ms: number) => (time += ms) };
}

/** An upstream that fails `failures` times with `error`, then answers "ok". */
function flaky(failures: number, error: () => unknown = () => new UpstreamHttpError(503)) {
  let calls = 0;
  const attempt = async () => {
    calls += 1;
    if (calls <= failures) throw error();
    return "ok";
  };
  return { attempt, calls: () => calls };
}

const clerkError = (status?: number, retryAfter?: number) =>
  Object.assign(new Error("clerk"), { clerkError: true, status, retryAfter });

describe("callUpstream: the retry policy", () => {
  it.each([
    [1, 2],
    [2, 3],
    [3, 4],
  ])("succeeds after %i failure(s) in %i attempts", async (failures, attempts) => {
    const clock = fakeClock();
    const upstream = flaky(failures);
    await expect(callUpstream("test", upstream.attempt, clock.options)).resolves.toBe("ok");
    expect(upstream.calls()).toBe(attempts);
    expect(clock.delays).toHaveLength(failures);
  });

  it("gives up after exactly 4 attempts when every one fails", async () => {
    const clock = fakeClock();
    const upstream = flaky(99);
    const error = await callUpstream("test", upstream.attempt, clock.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect((error as UpstreamUnavailableError).attempts).toBe(4);
    expect(upstream.calls()).toBe(4);
    expect(clock.logs.map((l) => l.outcome)).toEqual(["retry", "retry", "retry", "give-up"]);
    expect((error as UpstreamUnavailableError).retryAfterSeconds).toBe(UPSTREAM_POLICY.unavailableRetryAfterSeconds);
  });

  it.each([400, 403, 404, 409, 422, 429])("never retries a %i", async (status) => {
    const clock = fakeClock();
    const upstream = flaky(99, () => clerkError(status));
    await expect(callUpstream("test", upstream.attempt, clock.options)).rejects.toMatchObject({ status });
    expect(upstream.calls()).toBe(1);
  });

  it("retries connection failures, from fetch and from the Clerk SDK alike", async () => {
    const clock = fakeClock();
    const fetchFailure = flaky(2, () => new TypeError("fetch failed"));
    await expect(callUpstream("test", fetchFailure.attempt, clock.options)).resolves.toBe("ok");
    expect(fetchFailure.calls()).toBe(3);
    const sdkFailure = flaky(3, () => clerkError(undefined));
    await expect(callUpstream("test", sdkFailure.attempt, clock.options)).resolves.toBe("ok");
    expect(sdkFailure.calls()).toBe(4);
    expect(clock.logs.filter((l) => l.outcome === "retry").map((l) => l.status)).toEqual(Array(5).fill("network"));
  });

  it("rethrows errors that are not upstream failures at once (bugs are not retried)", async () => {
    const upstream = flaky(99, () => new RangeError("bug"));
    await expect(callUpstream("test", upstream.attempt, fakeClock().options)).rejects.toBeInstanceOf(RangeError);
    expect(upstream.calls()).toBe(1);
  });

  it("tries a write once", async () => {
    const upstream = flaky(1);
    const error = await callUpstream("test", upstream.attempt, { ...fakeClock().options, retry: false }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(upstream.calls()).toBe(1);
  });

  it("backs off exponentially with full jitter, capped", async () => {
    const top = fakeClock(1);
    await callUpstream("test", flaky(3).attempt, { ...top.options, policy: { baseDelayMs: 100, maxDelayMs: 300 } });
    expect(top.delays).toEqual([100, 200, 300]);
    const half = fakeClock(0.5);
    await callUpstream("test", flaky(3).attempt, half.options);
    expect(half.delays).toEqual([50, 100, 200]);
    const none = fakeClock(0);
    await callUpstream("test", flaky(3).attempt, none.options);
    expect(none.delays).toEqual([0, 0, 0]);
  });

  it("honours Retry-After up to its cap, and passes it on when giving up", async () => {
    const clock = fakeClock(0);
    const upstream = flaky(2, () => new UpstreamHttpError(503, 1_500));
    await callUpstream("test", upstream.attempt, clock.options);
    expect(clock.delays).toEqual([1_500, 1_500]);

    const capped = fakeClock(0);
    const error = await callUpstream("test", flaky(9, () => clerkError(503, 30)).attempt, {
      ...capped.options,
      policy: { deadlineMs: 60_000 },
    }).catch((e) => e);
    expect(capped.delays).toEqual([2_000, 2_000, 2_000]);
    expect((error as UpstreamUnavailableError).retryAfterSeconds).toBe(30);
  });

  it("stops at the deadline rather than sleeping past it", async () => {
    const clock = fakeClock(0);
    const upstream = flaky(9, () => new UpstreamHttpError(503, 1_000));
    const error = await callUpstream("test", upstream.attempt, {
      ...clock.options,
      policy: { deadlineMs: 2_500 },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    // Attempts at 0 ms and 1000 ms and 2000 ms; a third wait would end at 3000 ms.
    expect(upstream.calls()).toBe(3);
    expect(clock.delays).toEqual([1_000, 1_000]);
  });

  it("gives up without an attempt once a shared deadline has passed", async () => {
    const clock = fakeClock();
    clock.advance(10_000);
    const upstream = flaky(0);
    await expect(callUpstream("test", upstream.attempt, { ...clock.options, deadline: 9_000 })).rejects.toBeInstanceOf(
      UpstreamUnavailableError,
    );
    expect(upstream.calls()).toBe(0);
  });

  it("times out a hanging attempt, aborts it, and retries", async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const attempt = (signal: AbortSignal) => {
      calls += 1;
      signals.push(signal);
      return calls < 3 ? new Promise<string>(() => {}) : Promise.resolve("late but fine");
    };
    const logs: LogFields[] = [];
    const result = await callUpstream("test", attempt, {
      policy: { attemptTimeoutMs: 20, baseDelayMs: 1 },
      log: (f) => logs.push(f),
    });
    expect(result).toBe("late but fine");
    expect(calls).toBe(3);
    expect(signals.slice(0, 2).every((s) => s.aborted)).toBe(true);
    expect(logs.map((l) => l.status)).toEqual(["timeout", "timeout", "ok"]);
  });

  it("logs one line per attempt with the upstream, attempt, status and duration only", async () => {
    const clock = fakeClock();
    await callUpstream("clerk.users", flaky(1).attempt, clock.options);
    expect(clock.logs).toEqual([
      { upstream: "clerk.users", attempt: 1, status: 503, duration_ms: 0, outcome: "retry", delay_ms: 100 },
      { upstream: "clerk.users", attempt: 2, status: "ok", duration_ms: 0, outcome: "ok" },
    ]);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates, and ignores nonsense", () => {
    expect(parseRetryAfter("3")).toBe(3_000);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe("createDeduper", () => {
  it("makes concurrent identical reads once, and different ones separately", async () => {
    const once = createDeduper();
    let runs = 0;
    const read = () => {
      const run = (runs += 1);
      return new Promise((resolve) => setTimeout(() => resolve(run), 5));
    };
    const [a, b, c] = await Promise.all([once("a", read), once("a", read), once("b", read)]);
    expect(runs).toBe(2);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it("gives each caller of a failed read its own response, even one that asks after another has read its body", async () => {
    const once = createDeduper();
    const read = () => Promise.reject(new Response("unavailable", { status: 503 }));
    const first = (await once("a", read).catch((e: unknown) => e)) as Response;
    expect(await first.text()).toBe("unavailable");
    const later = (await once("a", read).catch((e: unknown) => e)) as Response;
    expect(later).not.toBe(first);
    expect(await later.text()).toBe("unavailable");
  });
});

describe("fetchWithRetry against a real loopback server", () => {
  let server: Server;
  let origin = "";
  let plan: number[] = [];
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      const status = plan.shift() ?? 200;
      res.writeHead(status, status === 503 ? { "Retry-After": "0" } : {});
      res.end(String(status));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const fast: CallOptions = { policy: { baseDelayMs: 1 }, log: () => {} };

  it("retries a GET through 5xx answers and returns the success", async () => {
    plan = [503, 500, 502];
    hits = 0;
    const response = await fetchWithRetry("sink", origin, {}, fast);
    expect(await response.text()).toBe("200");
    expect(hits).toBe(4);
  });

  it("returns a 4xx as it is, after one request", async () => {
    plan = [404];
    hits = 0;
    expect((await fetchWithRetry("sink", origin, {}, fast)).status).toBe(404);
    expect(hits).toBe(1);
  });

  it("sends a POST once, unless it carries an idempotency key", async () => {
    plan = [503, 503];
    hits = 0;
    await expect(fetchWithRetry("sink", origin, { method: "POST", body: "x" }, fast)).rejects.toBeInstanceOf(
      UpstreamUnavailableError,
    );
    expect(hits).toBe(1);
    hits = 0;
    const keyed = { method: "POST", body: "x", headers: { "Idempotency-Key": "k1" } };
    expect((await fetchWithRetry("sink", origin, keyed, fast)).status).toBe(200);
    expect(hits).toBe(2);
  });

  it("retries a refused connection, then gives up", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await fetchWithRetry("gone", `http://127.0.0.1:${port}`, {}, fast).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect((error as UpstreamUnavailableError).attempts).toBe(4);
  });
});

describe("callUpstream: each attempt's outcome, for metrics", () => {
  const outcomes = async (attempt: (signal: AbortSignal) => Promise<unknown>, extra: CallOptions = {}) => {
    const seen: string[] = [];
    await callUpstream("clerk.users", attempt, {
      ...fakeClock().options,
      ...extra,
      onAttempt: (outcome, seconds) => seen.push(`${outcome}${seconds === null ? " (none made)" : ""}`),
    }).catch(() => undefined);
    return seen;
  };

  it("a 503 then an answer: retried, ok", async () => {
    expect(await outcomes(flaky(1).attempt)).toEqual(["retried", "ok"]);
  });

  it("a 503 that lasts: three retried, then gave_up", async () => {
    expect(await outcomes(flaky(9).attempt)).toEqual(["retried", "retried", "retried", "gave_up"]);
  });

  it("a 4xx is the client's error and is not retried; a bug is no upstream outcome at all", async () => {
    expect(await outcomes(flaky(1, () => clerkError(422)).attempt)).toEqual(["client_error"]);
    expect(await outcomes(flaky(1, () => new RangeError("bug")).attempt)).toEqual([]);
  });

  it("a write is given up at its first failure", async () => {
    expect(await outcomes(flaky(1).attempt, { retry: false })).toEqual(["gave_up"]);
  });

  it("no answer in time: timed_out while attempts remain, gave_up at the last", async () => {
    const never = () => new Promise<string>(() => {});
    const seen: string[] = [];
    await callUpstream("clerk.users", never, {
      policy: { attemptTimeoutMs: 5, baseDelayMs: 1, retries: 1 },
      onAttempt: (outcome) => seen.push(outcome),
    }).catch(() => undefined);
    expect(seen).toEqual(["timed_out", "gave_up"]);
  });

  it("past the request's deadline: gave_up, with no attempt made", async () => {
    const clock = fakeClock();
    expect(await outcomes(flaky(0).attempt, { deadline: -1, now: clock.options.now })).toEqual(["gave_up (none made)"]);
  });
});
