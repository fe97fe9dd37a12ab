import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import { ApiError } from "../domain/errors";
import type { Faults } from "./faults";

export type Handler = (req: Request, res: Response) => unknown;

/** clerk-js sends PATCH and DELETE as POST with `?_method=` (a Safari CORS workaround). */
export function effectiveMethod(req: Request): string {
  const override = typeof req.query._method === "string" ? req.query._method.toUpperCase() : null;
  return req.method === "POST" && override ? override : req.method;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registers endpoints on a router. Each call is counted under its pattern,
 * meets any armed fault first, and turns an ApiError into Clerk's envelope
 * with `Content-Type: application/json` exactly (the SDK parses nothing else).
 */
/** How a resource module registers an endpoint: the registrar's `route`. */
export type Route = (method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT", pattern: string, handler: Handler) => void;

/** Every "api METHOD pattern" any registrar in this process has registered: what the coverage script counts. */
const registered = new Set<string>();
export function registeredOperations(): string[] {
  return [...registered];
}

export function createRegistrar(router: Router, api: "fapi" | "bapi", faults: Faults) {
  const byKey = new Map<string, Handler>();

  const dispatch: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const method = effectiveMethod(req);
      const pattern = (req.route as { path?: string } | undefined)?.path ?? req.path;
      const key = `${api} ${method} ${pattern}`;
      const handler = byKey.get(key);
      if (!handler) return next();
      faults.count(key);
      const fault = faults.take(key, req.originalUrl);
      if (fault?.mode === "hang") return faults.hold(req.socket); // never answers; the caller's time-out must act
      if (fault?.mode === "reset") return req.socket.destroy();
      if (fault?.mode === "slow") await sleep(fault.delayMs);
      if (fault?.mode === "error") {
        if (fault.retryAfter) res.setHeader("Retry-After", fault.retryAfter);
        return sendJson(
          res,
          fault.status,
          new ApiError(fault.status, "emulated_failure", "Injected by the emulator").toJSON(),
        );
      }
      try {
        const body = await handler(req, res);
        if (!answered(res)) sendJson(res, 200, body ?? null);
      } catch (error) {
        if (error instanceof ApiError) return sendJson(res, error.status, error.toJSON());
        next(error);
      }
    })();
  };

  return (method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT", pattern: string, handler: Handler) => {
    // One handler per operation: a second registration would silently replace the first.
    if (byKey.has(`${api} ${method} ${pattern}`)) throw new Error(`${api} ${method} ${pattern} is registered twice`);
    byKey.set(`${api} ${method} ${pattern}`, handler);
    registered.add(`${api} ${method} ${pattern}`);
    router.all(pattern, dispatch);
  };
}

/** Clerk's 404 envelope for what the emulator does not implement (mounted last on each API). */
export function notImplemented(req: Request, res: Response): void {
  sendJson(
    res,
    404,
    new ApiError(404, "resource_not_found", `The emulator does not implement ${req.method} ${req.path}`).toJSON(),
  );
}

export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.status(status);
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  res.end(text);
}

export function paginate<T>(items: T[], query: Request["query"]): { data: T[]; total_count: number } {
  const limit = clampInt(query.limit, 10, 1, 500);
  const offset = clampInt(query.offset, 0, 0, 1_000_000);
  return { data: items.slice(offset, offset + limit), total_count: items.length };
}

export function clampInt(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === "string" ? Number.parseInt(value, 10) : typeof value === "number" ? value : NaN;
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** Every value of a parameter given once or repeated (`?user_id=a&user_id=b`, `?user_id[]=a`). */
export function valuesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

const ANSWERED = Symbol("answered");

/**
 * Marks a response as answered before its headers go out (the Frontend API's latency holds every
 * `end` back): a handler that redirected has answered, and no 200 may follow it.
 */
export function markAnswered(res: Response): void {
  (res as Response & { [ANSWERED]?: true })[ANSWERED] = true;
}

/** Whether the handler answered itself (sent, or held back after `end`). */
const answered = (res: Response) => res.headersSent || (res as Response & { [ANSWERED]?: true })[ANSWERED] === true;
