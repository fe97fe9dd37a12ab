import { gzipSync as gzipBuffer } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureSink, type CaptureSink } from "../support/capture-sink";
import { startRedisServer, type RedisServer } from "../support/process-group";
import { type RunningServer, startServer } from "../support/server";

// The /ingest relay passes on this project's events only, from each client
// address within limits on requests, events and bytes, from everyone within
// limits on events and bytes, and bodies within a size. A capture sink on
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

/** The events that reached the sink while `work` ran. */
async function eventsRelayedDuring(work: () => Promise<unknown>): Promise<number> {
  const before = sink.events.length;
  await work();
  return sink.events.length - before;
}

function ingest(
  body: BodyInit,
  { path = "/ingest/e/", client = newClient(), headers = {} as Record<string, string>, to = server } = {},
) {
  return fetch(`${to.origin}${path}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain", "X-Forwarded-For": client, ...headers },
    body,
  });
}

const pageview = (token?: string) => ({
  event: "$pageview",
  properties: { distinct_id: "anon-relay", ...(token === undefined ? {} : { token }) },
});
/** A batch of `count` of this project's page views, as JSON. */
const pageviews = (count: number) => JSON.stringify(Array.from({ length: count }, () => pageview(KEY)));
/** One page view, padded to a JSON body of exactly `bytes` bytes. */
function paddedPageview(bytes: number): string {
  const unpadded = JSON.stringify([{ ...pageview(KEY), properties: { token: KEY, pad: "" } }]);
  return unpadded.replace('"pad":""', `"pad":"${"x".repeat(bytes - unpadded.length)}"`);
}

/** A refusal for being past a cap: 429, when to come back within the minute, and which cap, in words. */
async function expectCapped(res: Response, message: RegExp) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await res.text()).toMatch(message);
}

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

describe("how much a client address may have relayed", () => {
  const eventsCap = /^Too many analytics events from your address: nothing was sent on\. Try again in \d+ seconds\.$/;

  it("1,200 events a minute: one batch of 1,201 is refused whole with 429 and costs nothing; 1,200 then go, and no more", async () => {
    const client = newClient();
    expect(
      await eventsRelayedDuring(async () => expectCapped(await ingest(pageviews(1_201), { client }), eventsCap)),
    ).toBe(0);
    // The refused batch was not counted: the address still has its whole minute's worth.
    const relayed = await eventsRelayedDuring(async () => {
      expect((await ingest(pageviews(1_200), { client })).status).toBe(200);
      await expectCapped(await ingest(pageviews(1), { client }), eventsCap);
    });
    expect(relayed).toBe(1_200);
  });

  it("1,200 events a minute sent ten at a time, beacons among them: the 121st batch is refused; another address is unaffected", async () => {
    const client = newClient();
    const relayed = await eventsRelayedDuring(async () => {
      for (let i = 0; i < 120; i += 1) {
        const sent =
          i % 4 === 0
            ? await ingest(beacon(Array.from({ length: 10 }, () => pageview(KEY))), {
                client,
                path: "/ingest/e/?compression=base64",
                headers: { "Content-Type": "application/x-www-form-urlencoded" },
              })
            : await ingest(pageviews(10), { client });
        expect(sent.status).toBe(200);
      }
      await expectCapped(await ingest(pageviews(10), { client }), eventsCap);
    });
    expect(relayed).toBe(1_200);
    expect(await eventsRelayedDuring(async () => expect((await ingest(pageviews(10))).status).toBe(200))).toBe(10);
  });

  it("4 MiB a minute: 20 bodies of 200,000 bytes go, the 21st is refused with 429; a small one still fits", async () => {
    const client = newClient();
    const big = paddedPageview(200_000);
    expect(Buffer.byteLength(big)).toBe(200_000);
    const relayed = await eventsRelayedDuring(async () => {
      for (let i = 0; i < 20; i += 1) expect((await ingest(big, { client })).status).toBe(200);
      await expectCapped(
        await ingest(big, { client }),
        /^Too much analytics data from your address: nothing was sent on\. Try again in \d+ seconds\.$/,
      );
      // 4,000,000 of 4,194,304 bytes taken: a page view's few hundred bytes are within the minute's.
      expect((await ingest(pageviews(1), { client })).status).toBe(200);
    });
    expect(relayed).toBe(21);
  });
});

describe("how much everyone may have relayed, across a fleet sharing Redis", () => {
  // Two instances counting in one real redis-server, at the caps' real size: 30,000 events a minute in all.
  let redis: RedisServer;
  const fleet: RunningServer[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    for (let i = 0; i < 2; i += 1) {
      fleet.push(
        await startServer({
          POSTHOG_KEY: KEY,
          POSTHOG_HOST: sink.origin,
          REDIS_URL: redis.url,
          RATE_LIMIT_SCALE: "1",
          LOG_LEVEL: "silent",
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    try {
      for (const instance of fleet) if (instance.child.exitCode === null) await instance.stop();
    } finally {
      await redis?.stop();
    }
  });

  it("25 addresses at 1,200 events each fill the minute's 30,000; a 26th address is refused on either instance", async () => {
    const relayed = await eventsRelayedDuring(async () => {
      for (let i = 0; i < 25; i += 1) {
        const res = await ingest(pageviews(1_200), { client: newClient(), to: fleet[i % 2]! });
        expect(res.status, `address ${i + 1}`).toBe(200);
      }
      const everyone =
        /^Too many analytics events from everyone at once: nothing was sent on\. Try again in \d+ seconds\.$/;
      for (const instance of fleet) await expectCapped(await ingest(pageviews(1), { to: instance }), everyone);
    });
    expect(relayed).toBe(30_000);
  });
});

describe("how much everyone may have relayed, on one instance without Redis", () => {
  // In memory, at a hundredth of the caps (RATE_LIMIT_SCALE, as every limit): 1 MiB a minute in all,
  // 41,943 bytes (and 12 events) per address.
  let alone: RunningServer;

  beforeAll(async () => {
    alone = await startServer({
      POSTHOG_KEY: KEY,
      POSTHOG_HOST: sink.origin,
      RATE_LIMIT_SCALE: "0.01",
      LOG_LEVEL: "silent",
    });
  });

  afterAll(async () => {
    if (alone?.child.exitCode === null) await alone.stop();
  });

  it("25 addresses at 41,000 bytes each fit in the minute's 1 MiB; a 26th address is refused", async () => {
    const body = paddedPageview(41_000);
    const relayed = await eventsRelayedDuring(async () => {
      for (let i = 0; i < 25; i += 1) {
        expect((await ingest(body, { client: newClient(), to: alone })).status, `address ${i + 1}`).toBe(200);
      }
      await expectCapped(
        await ingest(body, { client: newClient(), to: alone }),
        /^Too much analytics data from everyone at once: nothing was sent on\. Try again in \d+ seconds\.$/,
      );
    });
    expect(relayed).toBe(25);
  });
});
