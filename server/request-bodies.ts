import type { Request, RequestHandler } from "express";
import { INGEST_MAX_BODY_BYTES } from "../app/lib/analytics/proxy.server";
import { clientAddressKey } from "../app/lib/http/client-address.server";
import { SlowBodies, readAhead } from "./body-arrival";
import { isTimelySvixDelivery, WEBHOOK_PATH } from "./clerk-webhooks";
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
  // Clerk's events are a few KB; the route's own parser stops at the same 64 KB. Only
  // requests that carry Svix's headers, with a recent timestamp, enter this pool.
  webhooks: { name: "webhooks", maxBytes: 64 * KB, poolBytes: 2 * MB },
  // Every form of the app: a theme, an organization's name, an invitation. None takes a file.
  // Room for 512 of the largest: 64 addresses sending all they may (4 each) fill half of it.
  forms: { name: "forms", maxBytes: 16 * KB, poolBytes: 8 * MB },
} satisfies Record<string, BodyKind>;

/**
 * How many bodies of one kind one client address may be sending at once. A
 * body counts while it arrives (a browser's, a round trip or two), so four
 * leave room for the people behind one NAT; a client that stalls its bodies
 * holds four slots of a pool, not the pool.
 */
export const BODIES_PER_CLIENT = 4;

/** How long a client waits after a 503 or 429 for lack of room: at most the request time-out, until a held body is over. */
const RETRY_AFTER_SECONDS = 15;

export function bodyKindFor(path: string): BodyKind {
  if (path.startsWith("/ingest/")) return BODY_KINDS.analytics;
  if (path === WEBHOOK_PATH) return BODY_KINDS.webhooks;
  return BODY_KINDS.forms;
}

/** Amounts held per key (a pool's bytes, a client's bodies), given back when a request is over. */
export class InFlight {
  private readonly held = new Map<string, number>();

  of(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Takes `amount` under `key` if it stays within `limit`; else takes nothing. */
  tryTake(amount: number, key: string, limit: number): boolean {
    if (this.of(key) + amount > limit) return false;
    this.held.set(key, this.of(key) + amount);
    return true;
  }

  give(amount: number, key: string): void {
    const left = this.of(key) - amount;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
  }
}

/**
 * Before anything reads a body, each answered at once and without reading
 * it (the connection is closed): one larger than its route accepts, 413; one
 * to the webhook without Svix's headers and a recent timestamp (it could not
 * verify), 400; one more than its client address may be sending, 429; one
 * there is no room for in its kind's pool, 503, both with `Retry-After`.
 *
 * An accepted body is read here, as it arrives, and the app runs once it is
 * all in; one arriving slower than the minimum rate is cut with a 408
 * (body-arrival.ts). Its client's slot is held until it is in, its declared
 * length in the pool until the response is over. (requestHygiene has
 * already refused bodies of unknown length; the server's `requestTimeout`
 * bounds the whole request.)
 */
export function boundRequestBodies({
  pools = new InFlight(),
  clients = new InFlight(),
  slowBodies = new SlowBodies(),
}: { pools?: InFlight; clients?: InFlight; slowBodies?: SlowBodies } = {}): RequestHandler {
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
    if (kind === BODY_KINDS.webhooks && !isTimelySvixDelivery((name) => req.get(name))) {
      return refuseUnread(
        res,
        400,
        "Not a webhook delivery",
        "This address takes Clerk's webhooks, signed by Svix, sent within the last 5 minutes.",
      );
    }
    const client = `${kind.name} ${clientOf(req)}`;
    if (!clients.tryTake(1, client, BODIES_PER_CLIENT)) {
      return refuseUnread(
        res,
        429,
        "Too many at once",
        "Your connection is already sending several requests to this site. Wait for them to finish, then try again.",
        { "Retry-After": String(RETRY_AFTER_SECONDS) },
      );
    }
    if (!pools.tryTake(declared, kind.name, kind.poolBytes)) {
      clients.give(1, client);
      return refuseUnread(
        res,
        503,
        "Busy",
        "This site is busy receiving other requests. Please try again in a moment.",
        { "Retry-After": String(RETRY_AFTER_SECONDS) },
      );
    }
    let sending = true;
    const arrivedOrOver = () => {
      if (!sending) return;
      sending = false;
      clients.give(1, client);
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
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      arrivedOrOver();
      pools.give(declared, kind.name);
    };
    res.once("close", release);
    // A client gone before this line: its "close" may already have come, and would never give the room back.
    if (req.socket.destroyed) setImmediate(release);
  };
}

function clientOf(req: Request): string {
  return clientAddressKey(req.ip ?? req.socket.remoteAddress ?? "unknown");
}
