import type { RequestHandler, Response } from "express";
import { constants } from "node:zlib";
import compression from "compression";

type Flushable = Response & { flush?: () => void };

/**
 * gzip or Brotli for bodies of 1 KB and more (smaller ones go as they are).
 * Brotli keeps a 128 KB window: with its default 4 MB, setting up each
 * response's encoder cost a third of the organization home's throughput, and
 * our documents (about 20 KB) gain nothing from more. And `res.flush` is coalesced: Remix's adapter calls it after every chunk it
 * writes, and compression answers each call with a synchronous zlib flush. A
 * streamed document arrives as a burst of about ten chunks in one turn of the
 * event loop, so it now costs one flush per burst, not one per chunk; chunks
 * that arrive later (deferred data) are still sent as soon as they come.
 */
export function compress(): RequestHandler[] {
  return [
    compression({
      threshold: 1024,
      brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 17 } },
    }),
    coalesceFlushes,
  ];
}

export const coalesceFlushes: RequestHandler = (_req, res: Flushable, next) => {
  const flush = res.flush;
  if (typeof flush === "function") {
    let pending = false;
    res.flush = () => {
      if (pending) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        if (!res.writableEnded) flush.call(res);
      });
    };
  }
  next();
};
