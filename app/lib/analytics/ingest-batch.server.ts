/**
 * What the /ingest relay lets through: events for this app's PostHog project
 * and nothing else. posthog-js (as posthog-client.ts starts it) sends plain
 * JSON, or, through `sendBeacon` as a page closes, the same JSON as
 * `data=<base64>`; both are read here. Compressed bodies (gzip, lz-string)
 * are refused unread: this app's client never sends them (compression is
 * off), and inflating someone else's would cost us their size many times over.
 */
export type BatchVerdict =
  | { ok: true; events: number }
  | {
      ok: false;
      status: 400 | 403 | 415;
      reason: "compressed" | "unreadable" | "no-events" | "no-token" | "other-project";
    };

type Event = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The query's `compression`, if it names one posthog-js may send here uncompressed. */
const READABLE_COMPRESSION = new Set([null, "base64"]);

export function judgeBatch(input: {
  body: Uint8Array;
  contentEncoding: string | null;
  query: URLSearchParams;
  projectKey: string;
}): BatchVerdict {
  const { body, contentEncoding, query, projectKey } = input;
  const gzipped = body[0] === 0x1f && body[1] === 0x8b;
  if (contentEncoding || gzipped || !READABLE_COMPRESSION.has(query.get("compression"))) {
    return { ok: false, status: 415, reason: "compressed" };
  }
  const parsed = parseBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  if (parsed === undefined) return { ok: false, status: 400, reason: "unreadable" };
  const batch = eventsOf(parsed);
  if (batch === null) return { ok: false, status: 400, reason: "unreadable" };
  if (batch.events.length === 0) return { ok: false, status: 400, reason: "no-events" };
  const { events } = batch;

  // Every key the request names, wherever it names one, must be ours; and each event must be covered by one.
  const shared = [...batch.batchKeys, query.get("api_key"), query.get("token")].filter((key) => key != null);
  let uncovered = false;
  for (const key of shared) if (key !== projectKey) return { ok: false, status: 403, reason: "other-project" };
  for (const event of events) {
    const own = keysOf(event);
    if (own.some((key) => key !== projectKey)) return { ok: false, status: 403, reason: "other-project" };
    if (own.length === 0 && shared.length === 0) uncovered = true;
  }
  if (uncovered) return { ok: false, status: 400, reason: "no-token" };
  return { ok: true, events: events.length };
}

function parseBody(text: string): unknown {
  let json = text;
  if (text.startsWith("data=")) {
    const data = new URLSearchParams(text).get("data");
    if (data === null) return undefined;
    json = Buffer.from(data, "base64").toString("utf8");
  }
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The events of a body in one of capture's shapes (a list, `{ batch, api_key }`,
 * or one event), and the keys it names for all of them; null for anything
 * else, or a list with something in it that is not an event.
 */
function eventsOf(parsed: unknown): { events: Event[]; batchKeys: unknown[] } | null {
  const list = Array.isArray(parsed) ? parsed : isObject(parsed) && Array.isArray(parsed.batch) ? parsed.batch : null;
  if (list) {
    if (!list.every(isObject)) return null;
    const batchKeys = isObject(parsed) ? [parsed.api_key, parsed.token] : [];
    return { events: list, batchKeys };
  }
  return isObject(parsed) && typeof parsed.event === "string" ? { events: [parsed], batchKeys: [] } : null;
}

/** The project keys one event names (PostHog reads `api_key`, `token` and `properties.token`). */
function keysOf(event: Event): unknown[] {
  const properties = isObject(event.properties) ? event.properties : {};
  return [event.api_key, event.token, properties.token].filter((key) => key !== undefined && key !== null);
}
