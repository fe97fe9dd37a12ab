import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { RequestHandler } from "express";
import { effectiveMethod } from "./routing";

/** One answer the emulator gave, as the contract check in the tests reads it. */
export type Exchange = {
  seq: number;
  at: number;
  api: "fapi" | "bapi";
  /** The method Clerk's API saw: clerk-js's `?_method=` applied. */
  method: string;
  /** The path as Clerk's API has it: `/v1/…` for both (the Backend API's is relative to its `/v1` base in the spec). */
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body, or null for an answer without one (a redirect). */
  body: unknown;
  /** The `X-Contract-Test` header: which test's browser asked (Playwright sets it per test). */
  test: string | null;
};

/**
 * Calls `record` with every answer of the Frontend and Backend APIs, whatever
 * part of the emulator sent it (an endpoint, an injected fault, the 401 for a
 * bad secret key, the 404 for what it does not implement).
 */
export function recordAnswers(record: (exchange: Exchange) => void): RequestHandler {
  let seq = 0;
  return (req, res, next) => {
    const bapi = req.path.startsWith("/api/");
    const path = bapi ? req.path.slice(4) : req.path;
    if (!path.startsWith("/v1/") && !path.startsWith("/.well-known/")) return next();
    const method = effectiveMethod(req);
    const test = req.get("x-contract-test") ?? null;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      const chunk = args[0];
      const contentType = (res.getHeader("content-type") as string | undefined) ?? null;
      let body: unknown = null;
      if (contentType?.startsWith("application/json") && chunk !== undefined && typeof chunk !== "function") {
        try {
          body = JSON.parse(Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk));
        } catch {
          body = { unparsable: String(chunk).slice(0, 200) };
        }
      }
      record({
        seq: ++seq,
        at: Date.now(),
        api: bapi ? "bapi" : "fapi",
        method,
        path,
        status: res.statusCode,
        contentType,
        body,
        test,
      });
      return end(...args);
    }) as typeof res.end;
    next();
  };
}

/** Appends each answer as a JSON line to `<dir>/emulator-<pid>.jsonl` (test servers only). */
export function recordAnswersTo(dir: string): RequestHandler {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `emulator-${process.pid}.jsonl`);
  return recordAnswers((exchange) => appendFileSync(file, `${JSON.stringify(exchange)}\n`));
}
