import type { ErrorRequestHandler } from "express";
import { logEvent } from "../app/lib/log.server";

/**
 * The last handler, for errors handed to Express before Remix (a file that is
 * not there under /build, a path that is not valid percent-encoding). Express's
 * own would answer them well but print each one's stack to stderr: anyone
 * could fill the log with missing file names. A 4xx is the client's doing and
 * is answered with a bare page that runs nothing; a 5xx is a line of its own,
 * one JSON object, with its stack as a field.
 */
export function finalErrors(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const { status: given, statusCode } = (error ?? {}) as { status?: unknown; statusCode?: unknown };
    const candidate = typeof given === "number" ? given : typeof statusCode === "number" ? statusCode : 500;
    const status = candidate >= 400 && candidate < 600 ? candidate : 500;
    if (status >= 500) {
      logEvent("unexpected_error", {
        request_id: (res.locals.requestId as string | undefined) ?? null,
        method: req.method,
        path: req.path,
        kind: "express",
        error: error instanceof Error ? error.name : typeof error,
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
    }
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const text = status === 404 ? "Not Found" : status < 500 ? "Bad Request" : "Internal Server Error";
    res
      .status(status)
      .set({
        "Content-Security-Policy": "default-src 'none'",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
      })
      .type("text/plain")
      .send(`${text}\n`);
  };
}
