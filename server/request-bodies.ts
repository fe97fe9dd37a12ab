import type { Request, RequestHandler } from "express";
import { INGEST_MAX_BODY_BYTES } from "../app/lib/analytics/proxy.server";
import { clientAddressKey } from "../app/lib/http/client-address.server";
import { SlowBodies, readAhead } from "./body-arrival";
import { WEBHOOK_PATH } from "./clerk-webhooks";
import { refuseUnread } from "./refuse";

const KB = 1024;
const MB = 1024 * KB;

/**
 * What a request's body may be, by the kind of route it goes to: how large
 * one may be (`maxBytes`), and how many bytes of such bodies this instance
 * holds at once (`poolBytes`). Each kind has its own pool, so a flood of
 * analytics cannot leave a person's form without room.
 */
export type BodyKind = { name: string; maxBytes: number; poolBytes: number };

export const BODY_KINDS = {
  // posthog-js's batches of page views and error reports, uncompressed (posthog-client.ts).
  analytics: { name: "analytics", maxBytes: INGEST_MAX_BODY_BYTES, poolBytes: 8 * MB },
  // Clerk's events are a few KB; the route's own parser stops at the same 64 KB.
  webhooks: { name: "webhooks", maxBytes: 64 * KB, poolBytes: 2 * MB },
  // Every form of the app: a theme, an organization's name, an invitation. None takes a file.
  forms: { name: "forms", maxBytes: 16 * KB, poolBytes: 4 * MB },
} satisfies Record<string, BodyKind>;

/** What one client address may hold in bodies at once, across all kinds: four analytics batches. */
export const CLIENT_BYTES_IN_FLIGHT = 1 * MB;

/** How long a client waits after a 503 for lack of room: about as long as a body may take to arrive. */
const RETRY_AFTER_SECONDS = 15;

export function bodyKindFor(path: string): BodyKind {
  if (path.startsWith("/ingest/")) return BODY_KINDS.analytics;
  if (path === WEBHOOK_PATH) return BODY_KINDS.webhooks;
  return BODY_KINDS.forms;
}

/** Bytes held per key (a pool's name, a client's address), given back when a request is over. */
export class BytesInFlight {
  private readonly held = new Map<string, number>();

  of(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Takes `bytes` under every key if each stays within its limit; else takes nothing. */
  tryTake(bytes: number, limits: [key: string, limit: number][]): boolean {
    if (limits.some(([key, limit]) => this.of(key) + bytes > limit)) return false;
    for (const [key] of limits) this.held.set(key, this.of(key) + bytes);
    return true;
  }

  give(bytes: number, keys: string[]): void {
    for (const key of keys) {
      const left = this.of(key) - bytes;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    }
  }
}

/**
 * Before anything reads a body: one larger than its route accepts is answered
 * 413, and one there is no room for (its kind's pool, or its client's share,
 * is full) 503 with `Retry-After`, at once and without reading it (the
 * connection is closed).
 *
 * An accepted body is read here, as it arrives, and the app runs once it is
 * all in; one arriving slower than the minimum rate is cut with a 408
 * (body-arrival.ts). Its declared length is held until its response is over.
 * (requestHygiene has already refused bodies of unknown length; the server's
 * `requestTimeout` bounds the whole request.)
 */
export function boundRequestBodies({
  inFlight = new BytesInFlight(),
  slowBodies = new SlowBodies(),
}: { inFlight?: BytesInFlight; slowBodies?: SlowBodies } = {}): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get("Content-Length") ?? "0");
    if (!(declared > 0)) return next();
    const kind = bodyKindFor(req.path.replace(/\.data$/, ""));
    if (declared > kind.maxBytes) {
      return refuseUnread(
        res,
        413,
        "Too large",
        `That is larger than this address accepts (${kind.maxBytes / KB} KB). Shorten what you entered and send it again.`,
      );
    }
    const keys = [`kind:${kind.name}`, `client:${clientOf(req)}`];
    if (
      !inFlight.tryTake(declared, [
        [keys[0]!, kind.poolBytes],
        [keys[1]!, CLIENT_BYTES_IN_FLIGHT],
      ])
    ) {
      return refuseUnread(
        res,
        503,
        "Busy",
        "This site is busy receiving other requests. Please try again in a moment.",
        {
          "Retry-After": String(RETRY_AFTER_SECONDS),
        },
      );
    }
    let arriving = true;
    const arrivedOrOver = () => {
      if (!arriving) return;
      arriving = false;
      arrival.stop();
      stopReading();
    };
    const arrival = slowBodies.watch(() => {
      arrivedOrOver();
      refuseUnread(
        res,
        408,
        "Too slow",
        "What you sent arrived too slowly and was cut off. Check your connection and send it again.",
      );
    });
    const stopReading = readAhead(req, declared, arrival, () => {
      arrivedOrOver();
      next();
    });
    // "close" comes once, whether the response was sent, the body was cut or the client left.
    res.once("close", () => {
      arrivedOrOver();
      inFlight.give(declared, keys);
    });
  };
}

function clientOf(req: Request): string {
  return clientAddressKey(req.ip ?? req.socket.remoteAddress ?? "unknown");
}
