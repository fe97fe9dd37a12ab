import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureSink, type CaptureSink } from "../support/capture-sink";
import { keysModeOn, type RunningServer, startServer } from "../support/server";

// A write whose `Origin` is the public one but whose forwarded host is not
// (a client speaking to the instance, or through a proxy that passes its
// `X-Forwarded-Host` on) is refused before Remix: Remix's own cross-site
// check would throw, a 500 with a stack and an error report to PostHog.
// Keys mode behind a trusted "proxy" (loopback), PostHog a local sink.
let clerk: RunningServer;
let app: RunningServer;
let untrusting: RunningServer;
let sink: CaptureSink;

beforeAll(async () => {
  sink = await startCaptureSink();
  clerk = await startServer({ LOG_LEVEL: "silent" });
  const { env } = keysModeOn(clerk, "forwarded-host-session-secret-0123456789abcdef");
  const analytics = { POSTHOG_KEY: "phc_forwarded_host", POSTHOG_HOST: sink.origin };
  [app, untrusting] = await Promise.all([
    startServer({ ...env, ...analytics }),
    // Believes forwarded headers only from a proxy network the tests are not on.
    startServer({ ...env, ...analytics, TRUST_PROXY: "10.0.0.0/8" }),
  ]);
});

afterAll(async () => {
  for (const server of [app, untrusting, clerk]) if (server?.child.exitCode === null) await server.stop();
  await sink?.close();
});

type Reply = { status: number; body: string };

function send(server: RunningServer, method: string, path: string, headers: Record<string, string>, body = "") {
  return new Promise<Reply>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const form = "analytics=off&redirectTo=%2F";
const postForm = (server: RunningServer, path: string, headers: Record<string, string>) =>
  send(
    server,
    "POST",
    path,
    {
      "Content-Type": "application/x-www-form-urlencoded",
      "Content-Length": String(form.length),
      Origin: server.origin,
      ...headers,
    },
    form,
  );

describe("a write whose forwarded host is not the public one", () => {
  // A resource route's .data, a resource route's document POST, a page's document POST.
  for (const path of ["/resources/analytics.data", "/resources/analytics", "/orgs/new"]) {
    it(`${path}: 403 with a short message, no stack`, async () => {
      const reply = await postForm(app, path, { "X-Forwarded-Host": "evil.example" });
      expect(reply.status).toBe(403);
      expect(reply.body).toContain("Wrong address");
      expect(reply.body).not.toMatch(/Error|at .*\.js/);
    });
  }

  it("is refused however the foreign host is spelt (another port, a list)", async () => {
    const port = app.port + 1;
    expect((await postForm(app, "/resources/analytics", { "X-Forwarded-Host": `127.0.0.1:${port}` })).status).toBe(403);
    // (A list is malformed as a host: the hygiene check's 400.)
    expect(
      (await postForm(app, "/resources/analytics", { "X-Forwarded-Host": `127.0.0.1:${app.port}, evil.example` }))
        .status,
    ).toBe(400);
  });

  it("a Host that is not the public one, with no forwarded host, is refused too", async () => {
    const reply = await postForm(app, "/resources/analytics", { Host: "evil.example" });
    expect(reply.status).toBe(403);
  });

  it("the public host, forwarded or not, still works", async () => {
    const forwarded = await postForm(app, "/resources/analytics", { "X-Forwarded-Host": `127.0.0.1:${app.port}` });
    expect(forwarded.status).toBe(303);
    const direct = await postForm(app, "/resources/analytics.data", {});
    expect(direct.status).toBeLessThan(400);
  });

  it("from a client that is not a trusted proxy, X-Forwarded-Host is ignored: the write works", async () => {
    const reply = await postForm(untrusting, "/resources/analytics.data", { "X-Forwarded-Host": "evil.example" });
    expect(reply.status).toBe(202);
  });

  it("GETs of documents and .data are answered as for the public host, never a 500", async () => {
    for (const path of ["/", "/_root.data", "/orgs", "/orgs.data", "/resources/analytics.data"]) {
      const reply = await send(app, "GET", path, { "X-Forwarded-Host": "evil.example", Accept: "text/html" });
      expect(reply.status, path).toBeLessThan(500);
      expect(reply.body, path).not.toContain("evil.example");
    }
  });

  it("nothing was reported as an unexpected error (the server stopped, its queue sent)", async () => {
    await postForm(app, "/resources/analytics.data", { "X-Forwarded-Host": "evil.example" });
    await app.stop();
    expect(app.output()).not.toContain("unexpected_error");
    expect(sink.events.filter((e) => e.event === "$exception")).toEqual([]);
  });
});
