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

type Callback = (error?: Error | null) => void;
type Write = (chunk: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => boolean;
type End = (chunk?: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => Response;

/**
 * Writes made in one turn of the event loop go out as one. Remix's adapter
 * writes a streamed document as about ten chunks in a burst, and through
 * compression each chunk is a trip of its own to zlib's thread pool, taken
 * one after another, with the main thread woken for each (about 6% of its
 * time under load). Buffered for one turn, the burst is one trip; chunks that
 * come later (deferred data) still go out on the turn they come. Only for
 * Remix's answers: static files are piped, and rely on `write`'s backpressure.
 */
export const coalesceWrites: RequestHandler = (_req, res, next) => {
  const write = res.write.bind(res) as Write;
  const end = res.end.bind(res) as End;
  let pending: Buffer[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const take = () => {
    const body = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    return body;
  };
  const unschedule = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
  };
  const sendPending = () => {
    unschedule();
    if (pending.length && !res.destroyed) write(take());
  };
  // A view of the caller's bytes, not a copy: a writer hands its chunk over, as to any stream.
  const buffer = (chunk: unknown, encoding?: BufferEncoding) => {
    const bytes = chunk as Uint8Array;
    pending.push(
      typeof chunk === "string"
        ? Buffer.from(chunk, encoding)
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    );
  };
  res.write = ((chunk: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    // A caller that waits for its write to be handed on is not kept waiting a turn.
    if (typeof encoding === "function" || callback) {
      sendPending();
      return write(chunk, encoding, callback);
    }
    buffer(chunk, encoding);
    scheduled ??= setImmediate(sendPending);
    return !res.writableNeedDrain;
  }) as Response["write"];
  res.end = ((chunk?: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    if (!pending.length) return end(chunk, encoding, callback);
    unschedule();
    if (typeof chunk === "function") return end(take(), chunk as Callback);
    if (chunk !== undefined && chunk !== null) buffer(chunk, typeof encoding === "string" ? encoding : undefined);
    return end(take(), typeof encoding === "function" ? encoding : callback);
  }) as Response["end"];
  next();
};

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
