import type { IncomingMessage } from "node:http";

/**
 * The slowest a request's body may arrive: `bytesPerSecond`, averaged over
 * the last `windowMs` (so the first check is one window after the body
 * began), checked every `checkEveryMs`. As Apache's mod_reqtimeout
 * `MinRate=500`; averaged over a window rather than since the start, so a
 * body that sends most of itself at once and then stalls is cut as soon as
 * one that sent nothing (nginx's `client_body_timeout` is a gap between two
 * reads). A browser's form or batch arrives in one or a few round trips.
 */
export type MinimumRate = { bytesPerSecond: number; windowMs: number; checkEveryMs: number };

export const MINIMUM_BODY_RATE: MinimumRate = { bytesPerSecond: 500, windowMs: 5_000, checkEveryMs: 1_000 };

/** How a watched body reports its progress. */
export type Arrival = {
  /** All of the body received so far, in bytes. */
  received(bytes: number): void;
  /** Stops watching: the body has arrived, or the request is over. */
  stop(): void;
};

type Watched = { received: number; samples: { at: number; received: number }[]; slow: boolean; cut: () => void };

/**
 * The bodies being received, and the one timer that checks their rate. A
 * body below the floor at two checks in a row is cut (`cut`, once): a check
 * that ran late, before the server had read what had come meanwhile, cuts
 * nothing alone.
 */
export class SlowBodies {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | null = null;
  private readonly rate: MinimumRate;
  private readonly now: () => number;
  private readonly onATimer: boolean;

  constructor({
    rate = MINIMUM_BODY_RATE,
    now = () => performance.now(),
    onATimer = true,
  }: { rate?: MinimumRate; now?: () => number; onATimer?: boolean } = {}) {
    this.rate = rate;
    this.now = now;
    this.onATimer = onATimer;
  }

  get size(): number {
    return this.watched.size;
  }

  watch(cut: () => void): Arrival {
    const body: Watched = { received: 0, samples: [{ at: this.now(), received: 0 }], slow: false, cut };
    this.watched.add(body);
    // The timer runs only while there is a body to check: an idle server has none.
    if (this.onATimer && this.timer === null) {
      this.timer = setInterval(() => this.check(), this.rate.checkEveryMs);
      this.timer.unref();
    }
    return {
      received: (bytes) => void (body.received = bytes),
      stop: () => this.forget(body),
    };
  }

  /** One check of every body (the timer's; tests call it with their own clock). */
  check(): void {
    const now = this.now();
    const { bytesPerSecond, windowMs } = this.rate;
    for (const body of this.watched) {
      body.samples.push({ at: now, received: body.received });
      // The baseline is the newest sample at least a window old: older ones are no longer needed.
      while (body.samples.length > 1 && body.samples[1]!.at <= now - windowMs) body.samples.shift();
      const baseline = body.samples[0]!;
      const seconds = (now - baseline.at) / 1000;
      const below = seconds * 1000 >= windowMs && body.received - baseline.received < bytesPerSecond * seconds;
      if (below && body.slow) {
        this.forget(body);
        body.cut();
      } else {
        body.slow = below;
      }
    }
  }

  private forget(body: Watched) {
    this.watched.delete(body);
    if (this.watched.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

/**
 * Reads a request's body of `declared` bytes as it arrives, telling
 * `arrival` how much has come, and once it is all here puts it back
 * (`unshift`, before the stream has ended) for whatever reads it next:
 * Remix and the webhook's parser find it whole. Like a buffering proxy in
 * front, the app runs only once the body is in. Returns a function that
 * stops reading (the body was cut, or the client left).
 */
export function readAhead(req: IncomingMessage, declared: number, arrival: Arrival, arrived: () => void): () => void {
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => void req.off("readable", onReadable);
  function onReadable() {
    for (let chunk: Buffer | null; (chunk = req.read() as Buffer | null) !== null;) {
      chunks.push(chunk);
      received += chunk.length;
    }
    arrival.received(received);
    // Node's parser gives no more than the declared length; a client that left never gets here.
    if (received < declared) return;
    stop();
    // Put back now, in the same turn: `end` is emitted only on a later one, and not while the stream holds data.
    req.unshift(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    arrived();
  }
  req.on("readable", onReadable);
  return stop;
}
