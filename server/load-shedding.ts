import type { Request, RequestHandler } from "express";
import { logEvent } from "../app/lib/log.server";
import { refuse, refuseUnread } from "./refuse";

/**
 * When this instance is past what it can serve, a request for the app is
 * answered at once with 503 and `Retry-After` instead of joining a queue it
 * would leave only by a client's time-out, or never (issue 70: with the bench's
 * open loop at twice two instances' capacity, a sixth of the views got no
 * answer at all). Decided per request, before any of the app runs, from two
 * signals:
 *
 * - **requests in flight** (arrived here, not yet answered): work admitted
 *   and not done. Every admitted request holds memory, and those that want
 *   the CPU wait behind each other.
 * - **event-loop delay**: how late this process's own timer fires. A loop
 *   that is late is late for every request, whatever they wait on.
 *
 * Health (`/healthz`, `/readyz`) and static files are mounted before this and
 * never shed: a load balancer must still see the instance alive (readiness
 * says whether it *can* serve, not whether it is busy; taking a busy instance
 * out of the pool only moves its load to the others), and the files are
 * cheap and cached. Nor are Clerk's webhooks (`exempt`): they keep every
 * instance's kept answers current (a removed member's access ends with one),
 * Svix would deliver a shed one again only after seconds to minutes, and
 * their own body pool and allowance bound them already (request-bodies.ts,
 * docs/security.md). Bodies are refused unread, as request-bodies.ts does.
 */
export type SheddingLimits = {
  /** Requests in flight past which new ones are shed; 0: never by this. */
  maxInFlight: number;
  /** Event-loop delay (ms) past which new requests are shed; 0: never by this. */
  maxEventLoopDelayMs: number;
};

/**
 * The defaults, from the bench's figures on this project's 2-core machine
 * (docs/performance.md, docs/scaling.md):
 *
 * - **128 in flight.** A page costs 3–6 ms of the main thread's CPU, so an
 *   instance serves 170–275 a second; at 10 connections saturating it, about
 *   10 are in flight. 128 that all want the CPU are 0.5–0.8 s of queued work
 *   before the newest starts: longer than that, an honest 503 is better. It
 *   leaves room for pages waiting on a slow Clerk, which hold no CPU (at 200
 *   views a second and Clerk 0.5 s away, 100 in flight), and bounds the
 *   memory they hold (each promotes about 183 KB: 128 are about 23 MB of
 *   the 768 MB old space `npm start` allows).
 * - **150 ms of event-loop delay.** Saturated by the bench (10 connections),
 *   the loop's p99 delay is 25–36 ms; a full collection of this heap pauses
 *   it well under 100 ms. 150 ms at each of the loop's last three turns
 *   (`EventLoopDelay`) is a loop that cannot keep up, or a process starved of
 *   CPU: every request waiting on it is already slow. (The operators' alert,
 *   docs/operations.md, fires at a p99 of 200 ms.)
 *
 * `SHED_MAX_IN_FLIGHT` and `SHED_EVENT_LOOP_DELAY_MS` change them (0 turns
 * one off): a bigger machine per instance, or a slower Clerk, may want more.
 */
export const DEFAULT_SHEDDING_LIMITS: SheddingLimits = { maxInFlight: 128, maxEventLoopDelayMs: 150 };

/**
 * How long a shed client is asked to wait: an overload lasts seconds (a burst,
 * a cold start, a blocked loop), and a short wait spreads the retries out.
 */
export const SHED_RETRY_AFTER_SECONDS = 2;

/** The shed page's title (the bench tells the shedder's 503 from the app's by it). */
export const SHED_TITLE = "Too busy";

/** How often the loop's delay is sampled: its resolution, and what it costs (20 wake-ups a second). */
const SAMPLE_EVERY_MS = 50;

/**
 * The event loop's delay, as late as its own timer fires: the least of its
 * last three samples, the newest being how overdue the next one is now if
 * that is more (a request read in the same turn as a long stall sees it
 * before the timer has had its turn). The least of three: a loop late at
 * each of its last three turns is late for good (overloaded, or starved of
 * CPU by its container's quota), while one stall alone (compiling a route
 * on its first request, a full collection) has passed by the time the
 * requests it held are read, and shedding them would only fail them.
 */
export class EventLoopDelay {
  private timer: NodeJS.Timeout | null = null;
  private readonly samples = [0, 0, 0];
  private expected = 0;

  constructor(private readonly everyMs = SAMPLE_EVERY_MS) {}

  start(): this {
    if (this.timer) return this;
    this.expected = performance.now() + this.everyMs;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.samples.shift();
      this.samples.push(Math.max(0, now - this.expected));
      this.expected = now + this.everyMs;
    }, this.everyMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The delay now, in ms. */
  get ms(): number {
    if (!this.timer) return 0;
    const [older, old, newest] = this.samples as [number, number, number];
    return Math.min(older, old, Math.max(newest, performance.now() - this.expected));
  }
}

/** What the shedder reads: requests in flight and the loop's delay (a test passes its own). */
export type LoadGauge = { inFlight: number; eventLoopDelayMs: number };

/** Why a request would be shed now, or null. */
export function overloaded(gauge: LoadGauge, limits: SheddingLimits): "in_flight" | "event_loop_delay" | null {
  if (limits.maxInFlight > 0 && gauge.inFlight >= limits.maxInFlight) return "in_flight";
  if (limits.maxEventLoopDelayMs > 0 && gauge.eventLoopDelayMs >= limits.maxEventLoopDelayMs) return "event_loop_delay";
  return null;
}

/** One log line per overload, not per request: at most one every 10 s. */
const LOG_EVERY_MS = 10_000;

/**
 * The shedder: counts the requests it lets through until their response is
 * over ("close": answered, or the client left), and answers the others 503.
 */
export function shedLoad({
  limits = DEFAULT_SHEDDING_LIMITS,
  delay = new EventLoopDelay().start(),
  now = () => performance.now(),
  exempt = () => false,
}: {
  limits?: SheddingLimits;
  delay?: Pick<EventLoopDelay, "ms">;
  now?: () => number;
  /** Requests never shed nor counted (Clerk's webhooks). */
  exempt?: (req: Request) => boolean;
} = {}): RequestHandler {
  let inFlight = 0;
  let shedSinceLog = 0;
  let loggedAt = -Infinity;
  return (req, res, next) => {
    if (exempt(req)) return next();
    const reason = overloaded({ inFlight, eventLoopDelayMs: delay.ms }, limits);
    if (reason) {
      shedSinceLog += 1;
      if (now() - loggedAt >= LOG_EVERY_MS) {
        logEvent("load_shed", {
          reason,
          in_flight: inFlight,
          event_loop_delay_ms: Math.round(delay.ms),
          shed: shedSinceLog,
        });
        loggedAt = now();
        shedSinceLog = 0;
      }
      res.locals.route = "shed";
      const answer = hasBody(req) ? refuseUnread : refuse;
      return answer(res, 503, SHED_TITLE, "This site is very busy right now. Please try again in a moment.", {
        "Retry-After": String(SHED_RETRY_AFTER_SECONDS),
      });
    }
    // Counted once its body is here: a body still arriving is the body pools' to bound
    // (request-bodies.ts). Counted from its first byte, a few hundred stalled uploads (cheap to
    // send) would fill the 128 and shed every honest request.
    let counted = false;
    let over = false;
    const admitted = () => {
      if (counted || over) return;
      counted = true;
      inFlight += 1;
    };
    const done = () => {
      if (over) return;
      over = true;
      if (counted) inFlight -= 1;
    };
    // "close" comes once per response, answered or abandoned; a client gone before this line never sends it.
    res.once("close", done);
    if (req.socket.destroyed) setImmediate(done);
    if (hasBody(req)) req.once("end", admitted);
    else admitted();
    next();
  };
}

/** Whether the request declares a body (its length, or chunks): HTTP/1.1's two ways. */
const hasBody = (req: Request) =>
  req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? "0") > 0;

/** The limits from the environment (parsed and checked by env.server.ts), defaults for what is unset. */
export function sheddingLimits(env: {
  SHED_MAX_IN_FLIGHT?: number;
  SHED_EVENT_LOOP_DELAY_MS?: number;
}): SheddingLimits {
  return {
    maxInFlight: env.SHED_MAX_IN_FLIGHT ?? DEFAULT_SHEDDING_LIMITS.maxInFlight,
    maxEventLoopDelayMs: env.SHED_EVENT_LOOP_DELAY_MS ?? DEFAULT_SHEDDING_LIMITS.maxEventLoopDelayMs,
  };
}
