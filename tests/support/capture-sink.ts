import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/**
 * A stand-in for PostHog's capture API on loopback: it accepts what
 * posthog-js (through the app's /ingest proxy) and posthog-node send, and
 * records each event, so tests assert on what would have reached PostHog.
 *
 * Tests read it over HTTP too: `GET /_sink/events`, `DELETE /_sink/events`,
 * `GET /_sink/requests` (the headers each capture request arrived with).
 */
export type CapturedEvent = {
  event: string;
  distinctId: string | null;
  groups: Record<string, string>;
  url: string | null;
  properties: Record<string, unknown>;
  path: string;
  /** When the client says the event happened (ISO 8601), if it says. */
  timestamp: string | null;
};

export type CaptureSink = { origin: string; server: Server; events: CapturedEvent[]; close(): Promise<void> };

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Plain JSON, gzip, or posthog-js's older `data=<base64>` form: whatever arrives, as a list of raw events. */
export function decodeCapture(body: Buffer): Record<string, unknown>[] {
  let raw = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString("utf8") : body.toString("utf8");
  if (raw.startsWith("data=")) raw = Buffer.from(decodeURIComponent(raw.slice(5)), "base64").toString("utf8");
  if (!raw.trim()) return [];
  const parsed = JSON.parse(raw) as unknown;
  if (Array.isArray(parsed)) return parsed as Record<string, unknown>[];
  const object = parsed as Record<string, unknown>;
  if (Array.isArray(object.batch)) return object.batch as Record<string, unknown>[];
  return typeof object.event === "string" ? [object] : [];
}

function normalise(raw: Record<string, unknown>, path: string): CapturedEvent {
  const properties = (raw.properties ?? {}) as Record<string, unknown>;
  const distinctId = (raw.distinct_id ?? properties.distinct_id ?? null) as string | null;
  return {
    event: String(raw.event),
    distinctId,
    groups: (properties.$groups ?? {}) as Record<string, string>,
    url: (properties.$current_url ?? null) as string | null,
    properties,
    path,
    timestamp: typeof raw.timestamp === "string" ? raw.timestamp : null,
  };
}

export async function startCaptureSink(port = 0): Promise<CaptureSink> {
  const events: CapturedEvent[] = [];
  const requests: Record<string, string | string[] | undefined>[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://sink.invalid");
      if (url.pathname === "/_sink/events") {
        if (req.method === "DELETE") events.length = 0;
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify(events));
      }
      if (url.pathname === "/_sink/requests") {
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify(requests));
      }
      if (req.method !== "POST") {
        // Anything else posthog-js might ask for (remote config): nothing to offer.
        res.writeHead(404, { "Content-Type": "application/json" });
        return res.end("{}");
      }
      requests.push({ path: url.pathname, ...req.headers });
      try {
        for (const raw of decodeCapture(await readBody(req))) events.push(normalise(raw, url.pathname));
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ status: 1 }));
      } catch {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "undecodable" }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    events,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The events a running sink has recorded, read over HTTP (from Playwright workers). */
export async function sinkEvents(origin: string): Promise<CapturedEvent[]> {
  return (await fetch(`${origin}/_sink/events`)).json() as Promise<CapturedEvent[]>;
}
