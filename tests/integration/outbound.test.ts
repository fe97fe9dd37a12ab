import { randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysModeEnv, startServer, type RunningServer } from "../support/server";
import { createTestKeyPair } from "../support/session";

// Server-side request forgery through the /ingest proxy, in keys mode: a
// request may reach PostHog's ingestion endpoints and nothing else. An
// "internal host" stands in for what sits beside the server (a metadata
// service, an admin port) and records every request that reaches it; a
// stand-in PostHog answers as a hostile or broken upstream might.

type Recorded = { method: string; url: string };

const SECRET = `internal-secret-${randomBytes(8).toString("hex")}`;
// Well over any answer PostHog's capture endpoints give.
const HUGE_BYTES = 2 * 1024 * 1024;

let server: RunningServer;
let internal: Server;
let posthog: Server;
/** Port 80 of an address of its own on loopback: a protocol-relative URL names it without a port. */
let internalHost = "";
let posthogOrigin = "";
const internalHits: Recorded[] = [];
const posthogHits: Recorded[] = [];

function listen(srv: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(port, host, () => {
      srv.off("error", reject);
      resolve();
    });
  });
}

function close(srv: Server | undefined): Promise<void> {
  if (!srv?.listening) return Promise.resolve();
  srv.closeAllConnections();
  return new Promise((resolve) => srv.close(() => resolve()));
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    req.resume();
    req.on("end", resolve);
  });
}

/** Sends `bytes` in 64 KiB chunks without a Content-Length, as a stream would arrive. */
function streamBytes(res: ServerResponse, bytes: number) {
  res.writeHead(200, { "Content-Type": "application/json" });
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  const more = () => {
    while (sent < bytes) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    res.end();
  };
  more();
}

// The old filter refused `:`, so the protocol-relative hole is reached on port 80, which a
// test run can only have to itself on an address of its own (every 127/8 address is loopback).
async function listenOnOwnLoopbackPort80(srv: Server): Promise<string> {
  for (let tries = 0; ; tries++) {
    const host = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(1, 255)}`;
    try {
      await listen(srv, 80, host);
      return host;
    } catch (error) {
      if (tries >= 10) throw error;
    }
  }
}

beforeAll(async () => {
  internal = createServer((req, res) => {
    internalHits.push({ method: req.method ?? "", url: req.url ?? "" });
    void drain(req).then(() => res.writeHead(200, { "Content-Type": "text/plain" }).end(SECRET));
  });
  internalHost = await listenOnOwnLoopbackPort80(internal);

  posthog = createServer((req, res) => {
    posthogHits.push({ method: req.method ?? "", url: req.url ?? "" });
    const answer = new URL(req.url ?? "/", "http://posthog.invalid").searchParams.get("answer");
    void drain(req).then(() => {
      if (answer === "redirect") return res.writeHead(302, { Location: `http://${internalHost}/secret` }).end();
      if (answer === "huge") return streamBytes(res, HUGE_BYTES);
      if (answer === "huge-declared") {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(HUGE_BYTES) });
        return res.end(Buffer.alloc(HUGE_BYTES, "a"));
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":1}');
    });
  });
  await listen(posthog, 0, "127.0.0.1");
  posthogOrigin = `http://127.0.0.1:${(posthog.address() as AddressInfo).port}`;

  server = await startServer({
    ...keysModeEnv(createTestKeyPair().publicKeyPem),
    POSTHOG_KEY: "phc_outbound",
    POSTHOG_HOST: posthogOrigin,
    LOG_LEVEL: "silent",
  });
});

afterAll(async () => {
  try {
    if (server && server.child.exitCode === null) await server.stop();
  } finally {
    await Promise.all([close(internal), close(posthog)]);
  }
});

async function ingest(path: string, method: "GET" | "POST" = "GET") {
  const res = await fetch(server.origin + path, {
    method,
    headers: method === "POST" ? { "Content-Type": "text/plain" } : {},
    body:
      method === "POST"
        ? JSON.stringify([{ event: "$pageview", properties: { distinct_id: "anon", token: "phc_outbound" } }])
        : undefined,
    redirect: "manual",
  });
  return { status: res.status, body: await res.text() };
}

describe("the /ingest proxy reaches PostHog's ingestion endpoints and nothing else", () => {
  it("a protocol-relative path (`///host`, `%2F%2Fhost`) is refused and reaches no other host", async () => {
    const paths = [`/ingest///${internalHost}/x`, `/ingest/%2F%2F${internalHost}/x`, `/ingest/%2F/${internalHost}/x`];
    const answers = [];
    for (const path of paths)
      for (const method of ["GET", "POST"] as const) {
        const { status, body } = await ingest(path, method);
        answers.push({ path, method, status, leaked: body.includes(SECRET) });
      }
    expect(answers).toEqual(answers.map(({ path, method }) => ({ path, method, status: 400, leaked: false })));
    expect(internalHits).toEqual([]);
  });

  it("a redirect from PostHog is not followed: the client gets a 502 without the target's answer", async () => {
    // The same path, answered normally, goes through.
    expect(await ingest("/ingest/e/?ver=1", "POST")).toEqual({ status: 200, body: '{"status":1}' });
    const before = posthogHits.length;
    const { status, body } = await ingest("/ingest/e/?answer=redirect", "POST");
    expect({ status, leaked: body.includes(SECRET) }).toEqual({ status: 502, leaked: false });
    // It did reach PostHog, once: the 502 is the redirect's, not a refusal before sending.
    expect(posthogHits.slice(before)).toEqual([{ method: "POST", url: "/e/?answer=redirect" }]);
    // (A GET is refused before it is sent: posthog-js posts its events.)
    expect((await ingest("/ingest/e/?answer=redirect", "GET")).status).toBe(405);
    expect(posthogHits.slice(before)).toHaveLength(1);
    expect(internalHits).toEqual([]);
  });

  it("paths posthog-js does not send here are 404 and reach nobody", async () => {
    const before = posthogHits.length;
    const answers = [];
    for (const path of [
      "/ingest/",
      "/ingest/api/projects/1/feature_flags/",
      "/ingest/flags/?v=2",
      "/ingest/decide/",
      "/ingest/static/array.js",
      "/ingest/s/",
      "/ingest/e",
      "/ingest/e/x",
    ])
      for (const method of ["GET", "POST"] as const)
        answers.push({ path, method, status: (await ingest(path, method)).status });
    expect(answers).toEqual(answers.map(({ path, method }) => ({ path, method, status: 404 })));
    expect(posthogHits.slice(before)).toEqual([]);
  });

  it("an answer larger than the cap becomes a 502, streamed or declared", async () => {
    for (const answer of ["huge", "huge-declared"]) {
      const { status, body } = await ingest(`/ingest/e/?answer=${answer}`, "POST");
      expect({ answer, status, short: body.length < 1_000 }).toEqual({ answer, status: 502, short: true });
    }
  });
});
