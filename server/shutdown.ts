import type { Server } from "node:http";
import type { RequestHandler } from "express";

type Cleanup = {
  /** Runs at once (e.g. release calls the emulator holds open). */
  beforeClose?(): void;
  /** Runs once the last connection has closed (e.g. flush analytics). */
  afterClose?(): Promise<void>;
};

/**
 * Graceful shutdown on SIGTERM and SIGINT: stop accepting connections, let
 * open requests finish (each answered with `Connection: close`), clean up,
 * exit 0; exit 1 if that takes longer than 10 s.
 */
export function createShutdown() {
  let stopping = false;

  const closeWhileStopping: RequestHandler = (_req, res, next) => {
    if (stopping) res.setHeader("Connection", "close");
    next();
  };

  function listenForSignals(server: Server, cleanup: Cleanup) {
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`${signal} received: finishing open requests, then exiting.`);
      setTimeout(() => process.exit(1), 10_000).unref();
      cleanup.beforeClose?.();
      server.close(() => {
        void (cleanup.afterClose?.() ?? Promise.resolve()).catch(() => undefined).then(() => process.exit(0));
      });
      // Keep-alive connections go idle once their last response is written.
      setInterval(() => server.closeIdleConnections(), 100).unref();
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
  }

  return { closeWhileStopping, listenForSignals };
}
