import { gzipSync as gzipBuffer } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureSink, type CaptureSink } from "../support/capture-sink";
import { type RunningServer, startServer } from "../support/server";

// The /ingest relay passes on this project's events only, from each client
// address within a limit, and bodies within a size. A capture sink on
// loopback stands in for PostHog and counts what reached it.
const KEY = "phc_ingest_relay";
const OTHER = "phc_someone_else";
let sink: CaptureSink;
let server: RunningServer;

beforeAll(async () => {
  sink = await startCaptureSink();
  // Limits at their real size (the test servers' default multiplies them).
  server = await startServer({
    POSTHOG_KEY: KEY,
    POSTHOG_HOST: sink.origin,
    RATE_LIMIT_SCALE: "1",
    LOG_LEVEL: "silent",
  });
});

afterAll(async () => {
  if (server?.child.exitCode === null) await server.stop();
  await sink?.close();
});

/** gzip, as a body fetch takes. */
const gzipSync = (text: string) => new Uint8Array(gzipBuffer(text));

let clients = 0;
/** A new client address (the server trusts loopback's X-Forwarded-For): each test's limit starts empty. */
const newClient = () => `198.51.100.${(clients += 1)}`;

async function relayedDuring(work: () => Promise<unknown>): Promise<number> {
  const before = ((await (await fetch(`${sink.origin}/_sink/requests`)).json()) as unknown[]).length;
  await work();
  return ((await (await fetch(`${sink.origin}/_sink/requests`)).json()) as unknown[]).length - before;
}

function ingest(
  body: BodyInit,
  { path = "/ingest/e/", client = newClient(), headers = {} as Record<string, string> } = {},
) {
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain", "X-Forwarded-For": client, ...headers },
    body,
  });
}

const pageview = (token?: string) => ({
  event: "$pageview",
  properties: { distinct_id: "anon-relay", ...(token === undefined ? {} : { token }) },
});
/** posthog-js's `sendBeacon` shape: the JSON, base64, as a form field. */
const beacon = (events: unknown) =>
  `data=${encodeURIComponent(Buffer.from(JSON.stringify(events)).toString("base64"))}`;

describe("whose events are relayed", () => {
  it("this project's, in each shape posthog-js sends, are forwarded", async () => {
    const relayed = await relayedDuring(async () => {
      expect((await ingest(JSON.stringify([pageview(KEY)]))).status).toBe(200);
      expect(
        (await ingest(JSON.stringify({ api_key: KEY, batch: [pageview(KEY)] }), { path: "/ingest/i/v0/e/" })).status,
      ).toBe(200);
      expect((await ingest(JSON.stringify({ ...pageview(), api_key: KEY }))).status).toBe(200);
      const sent = await ingest(beacon([pageview(KEY)]), {
        path: "/ingest/e/?compression=base64",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(sent.status).toBe(200);
    });
    expect(relayed).toBe(4);
  });

  it("another project's are refused with 403 and reach nobody, wherever the key is", async () => {
    const bodies = [
      JSON.stringify([pageview(OTHER)]),
      JSON.stringify({ api_key: OTHER, batch: [pageview(KEY)] }),
      JSON.stringify({ ...pageview(), api_key: OTHER }),
      JSON.stringify({ ...pageview(KEY), token: OTHER }),
      // One of ours beside one of theirs: the whole batch.
      JSON.stringify([pageview(KEY), pageview(OTHER)]),
    ];
    const relayed = await relayedDuring(async () => {
      for (const body of bodies) expect((await ingest(body)).status, body).toBe(403);
      expect((await ingest(JSON.stringify([pageview(KEY)]), { path: `/ingest/e/?api_key=${OTHER}` })).status).toBe(403);
      expect((await ingest(beacon([pageview(OTHER)]), { path: "/ingest/e/?compression=base64" })).status).toBe(403);
    });
    expect(relayed).toBe(0);
  });

  it("bodies without a key, without events or unreadable are refused with 400 and reach nobody", async () => {
    const relayed = await relayedDuring(async () => {
      for (const body of [
        JSON.stringify([pageview()]),
        "[]",
        "{}",
        "not json",
        JSON.stringify([pageview(KEY), 1]),
        "data=%%%",
      ])
        expect((await ingest(body)).status, body).toBe(400);
    });
    expect(relayed).toBe(0);
  });

  it("compressed bodies (which this app's client never sends) are refused with 415, unread, and reach nobody", async () => {
    const events = JSON.stringify([pageview(KEY)]);
    const relayed = await relayedDuring(async () => {
      expect((await ingest(gzipSync(events))).status).toBe(415);
      expect((await ingest(gzipSync(events), { path: "/ingest/e/?compression=gzip-js" })).status).toBe(415);
      expect((await ingest(events, { path: "/ingest/e/?compression=lz64" })).status).toBe(415);
      expect((await ingest(gzipSync(events), { headers: { "Content-Encoding": "gzip" } })).status).toBe(415);
    });
    expect(relayed).toBe(0);
  });

  it("a GET, whose events would ride in its query, is refused with 405", async () => {
    const data = Buffer.from(JSON.stringify([pageview(OTHER)])).toString("base64");
    const relayed = await relayedDuring(async () => {
      const res = await fetch(`${server.origin}/ingest/e/?data=${encodeURIComponent(data)}`, {
        headers: { "X-Forwarded-For": newClient() },
      });
      expect(res.status).toBe(405);
    });
    expect(relayed).toBe(0);
  });

  it("a body over 256 KB is refused with 413 and reaches nobody", async () => {
    const padded = JSON.stringify([{ ...pageview(KEY), properties: { token: KEY, pad: "x".repeat(300_000) } }]);
    const relayed = await relayedDuring(async () => expect((await ingest(padded)).status).toBe(413));
    expect(relayed).toBe(0);
  });
});

describe("how often a client may send", () => {
  // The opted-out answer is counted too and costs nothing upstream: the limit is reached without PostHog.
  const optedOut = { Cookie: "analytics_opt_out=1" };

  it("240 requests a minute per address, then 429 with Retry-After; another address is unaffected", async () => {
    const client = newClient();
    for (let i = 0; i < 240; i += 1) expect((await ingest("[]", { client, headers: optedOut })).status).toBe(200);
    const refused = await ingest(JSON.stringify([pageview(KEY)]), { client });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await ingest(JSON.stringify([pageview(KEY)]))).status).toBe(200);
  });

  it("IPv6 clients count by their /64", async () => {
    const prefix = `2001:db8:${(clients += 1).toString(16)}:1`;
    for (let i = 0; i < 240; i += 1) {
      const client = `${prefix}::${(i + 1).toString(16)}`;
      expect((await ingest("[]", { client, headers: optedOut })).status).toBe(200);
    }
    expect((await ingest("[]", { client: `${prefix}:ffff:ffff:ffff:ffff`, headers: optedOut })).status).toBe(429);
    expect((await ingest("[]", { client: `${prefix.slice(0, -1)}2::1`, headers: optedOut })).status).toBe(200);
  });
});
