import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureSink, type CaptureSink } from "../support/capture-sink";
import { scrapeMetrics } from "../support/metrics";
import { freePort, startServer, type RunningServer } from "../support/server";
import {
  connected,
  drip,
  headerOf,
  rssMb,
  stalledPost,
  tricklePost,
  type StalledPost,
} from "../support/stalled-bodies";
import { newWebhookSecret, signedWebhook } from "../support/webhooks";

// Bodies sent slowly, or not at all, to an instance reached directly (no
// buffering proxy in front): they must not starve Clerk's webhooks or other
// people's forms. Clients are told apart by X-Forwarded-For (the test server
// trusts loopback's, TRUST_PROXY's default); all on loopback.
const SECRET = newWebhookSecret();
const renamed = {
  type: "organization.updated",
  data: { id: "org_seed_engines", object: "organization", name: "Analytical Engines" },
};
let sink: CaptureSink;
let server: RunningServer;
let metricsPort: number;

beforeAll(async () => {
  sink = await startCaptureSink();
  metricsPort = await freePort();
  server = await startServer({
    POSTHOG_KEY: "phc_stalled_bodies",
    POSTHOG_HOST: sink.origin,
    CLERK_WEBHOOK_SIGNING_SECRET: SECRET,
    // Only the test's webhooks arrive.
    CLERK_EMULATOR_WEBHOOKS: "off",
    LOG_LEVEL: "silent",
    METRICS_PORT: String(metricsPort),
  });
});

afterAll(async () => {
  if (server?.child.exitCode === null) await server.stop();
  await sink?.close();
});

/** Requests the server has begun and not yet answered. */
async function inFlight(): Promise<number> {
  return (await scrapeMetrics(metricsPort)).get("http_requests_in_flight") ?? 0;
}

/** Resolves once the server has seen every one of `posts`: each is either answered or among the requests it holds. */
async function allSeen(posts: StalledPost[], timeout = 30_000) {
  await expect
    .poll(async () => posts.filter((p) => p.answered).length + (await inFlight()), { timeout, interval: 200 })
    .toBe(posts.length);
}

/** A person's ordinary form post (analytics off, back to the home page): 303 when it went through. */
async function ordinaryForm(client: string): Promise<number> {
  const res = await fetch(`${server.origin}/resources/analytics`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": client },
    body: "analytics=off&redirectTo=%2F",
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

/** Clerk's signed webhook (an organization renamed), as Svix delivers it: its status. */
async function signedDelivery(): Promise<number> {
  const { body, headers } = signedWebhook(SECRET, renamed);
  const res = await fetch(`${server.origin}/webhooks/clerk`, {
    method: "POST",
    headers: { ...headers, "X-Forwarded-For": "192.0.2.200" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

const FORM_LIMIT = 16 * 1024;
const WEBHOOK_LIMIT = 64 * 1024;
const stalledForm = (client: string, sent = 512) =>
  stalledPost(server, { path: "/resources/analytics", client, declared: FORM_LIMIT, sent });
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Svix's three headers, the signature made up (it covers the body, which never comes). */
const svixLike = (timestamp: number) => ({
  "svix-id": `msg_${Math.random().toString(36).slice(2)}`,
  "svix-timestamp": String(timestamp),
  "svix-signature": "v1,bm90IGEgcmVhbCBzaWduYXR1cmUgYXQgYWxs",
});
const stalledWebhook = (client: string, headers: Record<string, string> = {}) =>
  stalledPost(server, {
    path: "/webhooks/clerk",
    client,
    declared: WEBHOOK_LIMIT,
    sent: 512,
    type: "application/json",
    headers,
  });

function destroy(posts: StalledPost[]) {
  for (const post of posts) post.socket.destroy();
}

describe("64 addresses each sending 16 bodies that never finish, to the webhook and a form", () => {
  it("leave Clerk's signed webhook applied and another person's form answered, in bounded memory", async () => {
    // Warm: the first form's and webhook's code, and what a thousand connections
    // opened and closed cost the process whatever they send, are not what is measured.
    for (let i = 0; i < 5; i += 1) {
      expect(await ordinaryForm("192.0.2.10")).toBe(303);
      expect(await signedDelivery()).toBe(200);
    }
    for (let a = 0; a < 64; a += 1) {
      const refused = Array.from({ length: 16 }, () =>
        stalledPost(server, { path: "/resources/analytics", client: `198.18.${a}.1`, declared: 20_000, sent: 512 }),
      );
      await Promise.all(refused.map((p) => p.closed));
    }
    const before = rssMb(server);
    const forms: StalledPost[] = [];
    const webhooks: StalledPost[] = [];
    const posts = [forms, webhooks];
    // Each keeps sending 1 KB a second (above the minimum rate) and never ends:
    // what is admitted holds its room until the 15 s request time-out.
    const stopDrip = drip(forms, 1_000);
    try {
      for (let a = 0; a < 64; a += 1) {
        const client = `198.18.${a}.1`;
        const batch = {
          forms: Array.from({ length: 8 }, () => stalledForm(client)),
          // Without Svix's headers, and with a timestamp past Svix's 5 minutes.
          webhooks: [
            ...Array.from({ length: 4 }, () => stalledWebhook(client)),
            ...Array.from({ length: 4 }, () => stalledWebhook(client, svixLike(nowSeconds() - 6 * 60))),
          ],
        };
        forms.push(...batch.forms);
        webhooks.push(...batch.webhooks);
        await connected([...batch.forms, ...batch.webhooks]);
      }
      await allSeen(posts.flat());
      expect(await signedDelivery()).toBe(200);
      expect(await ordinaryForm("192.0.2.10")).toBe(303);
      // ...while the attack's bodies were held: four forms per address (no more: at most four from
      // each), the other four refused with 429, and the webhooks, without Svix's headers or too old,
      // refused unread with 400. (A refused connection still sending is reset as it closes, and may
      // lose its answer: "closed".)
      expect(forms.filter((p) => p.answered === null)).toHaveLength(64 * 4);
      const refusals = (list: StalledPost[]) => new Set(list.flatMap((p) => (p.answered ? [p.answered.status] : [])));
      expect([...refusals(forms)].filter((s) => s !== 429 && s !== "closed")).toEqual([]);
      expect(webhooks.filter((p) => p.answered === null)).toEqual([]);
      expect([...refusals(webhooks)].filter((s) => s !== 400 && s !== "closed")).toEqual([]);
      expect(rssMb(server) - before).toBeLessThan(40);
    } finally {
      stopDrip();
      destroy(posts.flat());
    }
    await expect.poll(inFlight).toBe(0);
    expect(rssMb(server) - before).toBeLessThan(40);
  }, 90_000);
});

describe("a body that arrives more slowly than the minimum rate", () => {
  it("is cut with a 408 and its room freed, while one that arrives faster is answered", async () => {
    // Four forms that trickle 50 bytes a second (the floor is 500), from one address.
    const slow = Array.from({ length: 4 }, () => stalledForm("192.0.2.20", 100));
    const stopSlow = drip(slow, 50);
    // A form of 12 KB at 2 KB a second: six seconds, past the rate's first check.
    const steady = tricklePost(server, {
      path: "/resources/analytics",
      client: "192.0.2.21",
      body: `analytics=off&redirectTo=%2F&note=${"n".repeat(12_000)}`,
      bytesPerSecond: 2_000,
    });
    try {
      const ends = await Promise.all(slow.map((p) => p.closed));
      for (const end of ends) {
        expect(end.status).toBe(408);
        // The minimum rate's own answer, not Node's bare 408 at the 15 s request time-out.
        expect(end.text).toContain("<h1>Too slow</h1>");
      }
      expect(await steady.answer).toMatchObject({ status: 303 });
      // Their room is free again: the same address's ordinary form goes through.
      expect(await ordinaryForm("192.0.2.20")).toBe(303);
    } finally {
      stopSlow();
      destroy([...slow, steady]);
    }
  }, 60_000);
});

describe("more bodies at once from one address than it may send", () => {
  it("are refused at once with 429 and Retry-After, taking nothing from the pool", async () => {
    const client = "192.0.2.30";
    const held = Array.from({ length: 4 }, () => stalledForm(client));
    await connected(held);
    await allSeen(held);
    const more = Array.from({ length: 20 }, () => stalledForm(client));
    const others = Array.from({ length: 4 }, () => stalledForm("192.0.2.31"));
    try {
      const refusals = await Promise.all(more.map((p) => p.closed));
      for (const refusal of refusals) {
        expect(refusal.status).toBe(429);
        expect(Number(headerOf(refusal, "Retry-After"))).toBeGreaterThan(0);
      }
      // Another address's bodies are held as usual: the refusals took no room.
      await allSeen([...held, ...others]);
      expect([...held, ...others].filter((p) => p.answered)).toEqual([]);
      // The cap is per kind of body: the same address's analytics batch is not held back.
      const batch = await fetch(`${server.origin}/ingest/e/`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": client },
        body: JSON.stringify([
          { event: "$pageview", properties: { distinct_id: "anon", token: "phc_stalled_bodies" } },
        ]),
      });
      expect(batch.status).toBe(200);
      expect(await ordinaryForm("192.0.2.32")).toBe(303);
    } finally {
      destroy([...held, ...more, ...others]);
    }
  });
});

describe("the webhook's own pool", () => {
  it("is entered only with Svix's headers and a recent timestamp; the rest are refused unread", async () => {
    const strays: StalledPost[] = [];
    for (let a = 0; a < 16; a += 1) {
      const client = `198.19.${a}.1`;
      strays.push(
        stalledWebhook(client),
        stalledWebhook(client, { "svix-timestamp": String(nowSeconds()), "svix-id": "msg_no_signature" }),
        stalledWebhook(client, svixLike(nowSeconds() - 6 * 60)),
        stalledWebhook(client, svixLike(nowSeconds() + 6 * 60)),
      );
    }
    // Two with Svix's headers and a timestamp of now: they enter, and wait for their bodies.
    const entered = [
      stalledWebhook("198.19.99.1", svixLike(nowSeconds())),
      stalledWebhook("198.19.99.2", svixLike(nowSeconds())),
    ];
    try {
      const refusals = await Promise.all(strays.map((p) => p.closed));
      expect(refusals.map((r) => r.status)).toEqual(Array(strays.length).fill(400));
      await allSeen(entered);
      expect(entered.filter((p) => p.answered)).toEqual([]);
      expect(await signedDelivery()).toBe(200);
    } finally {
      destroy([...strays, ...entered]);
    }
  });
});
