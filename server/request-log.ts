import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { logEvent } from "../app/lib/log.server";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The id that ties a request to its log lines: a sane incoming `X-Request-Id`, or a new one. */
export function requestIdFrom(incoming: string | undefined | null): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

// Static files and health checks are not worth a log line each.
const QUIET_PATHS = /^\/(healthz$|readyz$|build\/|_clerk-js\/|favicon)/;

/**
 * Gives each request its id (echoed as `X-Request-Id`, kept in
 * `res.locals.requestId`) and writes one line when it is answered: method,
 * path without the query, client address, status, duration.
 */
export function requestLog(): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.get("X-Request-Id"));
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    if (!QUIET_PATHS.test(req.path)) {
      const started = process.hrtime.bigint();
      res.once("finish", () => {
        logEvent("request", {
          request_id: requestId,
          method: req.method,
          path: req.path,
          // Behind a trusted proxy (TRUST_PROXY), the address it forwarded.
          client: req.ip,
          status: res.statusCode,
          duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
        });
      });
    }
    next();
  };
}
