import { createServer, type Server } from "node:http";
import type { RequestHandler } from "express";
import type { SharedRedis } from "../app/lib/redis-commands.server";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AppMetrics } from "../app/lib/metrics.server";

// Seconds. Pages answer in milliseconds to tens of them; Clerk's calls take a
// round trip and, at worst, the upstream policy's 3 s attempt time-out.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CLERK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const CLERK = "clerk.";

/**
 * The server's Prometheus metrics (see docs/operations.md), in their own
 * registry: the app's counters through `app`, each request through `http`,
 * Redis's state and prom-client's process metrics when scraped.
 */
export function createMetrics({ redis }: { redis: SharedRedis | null }) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by Remix route id, method and status class (2xx, 3xx, 4xx, 5xx).",
    labelNames: ["route", "method", "status_class"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer, by Remix route id, method and status class.",
    labelNames: ["route", "method", "status_class"] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({
    name: "http_requests_in_flight",
    help: "Requests that have arrived and are not yet answered.",
    registers,
  });
  const clerkRequests = new Counter({
    name: "clerk_backend_requests_total",
    help: "Attempts of Clerk Backend API calls, by endpoint (the SDK method) and outcome: ok, client_error, timed_out, retried, gave_up; over_budget made no call (the fleet's budget was spent), over_allowance neither (the payer's own allowance was).",
    labelNames: ["endpoint", "outcome"] as const,
    registers,
  });
  const clerkDuration = new Histogram({
    name: "clerk_backend_request_duration_seconds",
    help: "Time each attempt of a Clerk Backend API call took, by endpoint.",
    labelNames: ["endpoint"] as const,
    buckets: CLERK_BUCKETS,
    registers,
  });
  const cacheLookups = new Counter({
    name: "cache_lookups_total",
    help: "Lookups in the caches of Clerk's answers, by cache and result (hit, miss, stale: an old copy served because Clerk could not answer; too_old_to_authorize: Clerk could not answer and the only copy, past its fresh lifetime, would have granted access, so the page was a 503).",
    labelNames: ["cache", "result"] as const,
    registers,
  });
  const refusals = new Counter({
    name: "rate_limit_refusals_total",
    help: "Requests refused with 429, by rate limit.",
    labelNames: ["limit"] as const,
    registers,
  });
  const staleTokenPosts = new Counter({
    name: "stale_token_posts_total",
    help: "Forms sent with a session token stale for a timing reason, by outcome: ran, refused, unverified, unavailable, signed_out.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const errorReports = new Counter({
    name: "error_reports_total",
    help: "Unexpected errors reported to PostHog's error tracking, by outcome: sent, or dropped over the flood bound.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const clerkWebhooks = new Counter({
    name: "clerk_webhooks_total",
    help: "Requests to the Clerk webhook endpoint, by outcome: applied, ignored, replayed, refused, unavailable, in_progress.",
    labelNames: ["outcome"] as const,
    registers,
  });
  if (redis) {
    new Gauge({
      name: "redis_up",
      help: "1 while the connection to Redis (shared rate limits and caches) is ready, else 0.",
      registers,
      collect() {
        this.set(redis.status === "ready" ? 1 : 0);
      },
    });
  }

  const app: AppMetrics = {
    upstreamAttempt(upstream, outcome, seconds) {
      if (!upstream.startsWith(CLERK)) return;
      const endpoint = upstream.slice(CLERK.length);
      clerkRequests.inc({ endpoint, outcome });
      if (seconds !== null) clerkDuration.observe({ endpoint }, seconds);
    },
    cacheLookup(cache, result) {
      cacheLookups.labels(cache, result).inc();
    },
    rateLimitRefusal(limit) {
      refusals.inc({ limit });
    },
    staleTokenPost(outcome) {
      staleTokenPosts.inc({ outcome });
    },
    errorReport(outcome) {
      errorReports.inc({ outcome });
    },
    clerkWebhook(outcome) {
      clerkWebhooks.inc({ outcome });
    },
  };

  // One pair of labelled children per route, method and status class, made
  // once: prom-client would otherwise hash the labels on every request.
  const perLabels = new Map<
    string,
    { count: Counter.Internal; time: Histogram.Internal<"route" | "method" | "status_class"> }
  >();
  function childrenFor(route: string, method: string, statusClass: string) {
    const key = `${route} ${method} ${statusClass}`;
    let children = perLabels.get(key);
    if (!children) {
      children = {
        count: requests.labels(route, method, statusClass),
        time: duration.labels(route, method, statusClass),
      };
      perLabels.set(key, children);
    }
    return children;
  }

  /** Counts and times every request; `routeOf` names its route once it is answered. */
  function http(routeOf: (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => string) {
    const handler: RequestHandler = (req, res, next) => {
      const started = performance.now();
      inFlight.inc();
      // "close" comes once per response, answered or abandoned.
      res.once("close", () => {
        inFlight.dec();
        const method = METHODS.has(req.method) ? req.method : "other";
        const children = childrenFor(routeOf(req, res), method, `${Math.floor(res.statusCode / 100)}xx`);
        children.count.inc();
        children.time.observe((performance.now() - started) / 1000);
      });
      next();
    };
    return handler;
  }

  return { registry, app, http };
}

/**
 * The metrics listener: `/metrics` and nothing else, on its own port, so that
 * the public origin never serves them (keep it on loopback or a private
 * network; see METRICS_HOST).
 */
export function serveMetrics(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://metrics").pathname;
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" }).end(text),
      () => res.writeHead(500, { "Content-Type": "text/plain" }).end("Metrics could not be collected\n"),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
