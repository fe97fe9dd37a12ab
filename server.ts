import { createServer } from "node:http";
import { getHeapStatistics } from "node:v8";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import express from "express";
import { OWN_CLERK_JS } from "./app/lib/clerk/clerk-js-files.server";
import { EnvError, localModeRefusal, parseEnv } from "./app/lib/env.server";
import { logEvent } from "./app/lib/log.server";
import { createLoadContext } from "./app/lib/load-context.server";
import { loadAppBuild, WrongBuildError } from "./server/app-build";
import { clerkWebhooks, WEBHOOK_PATH } from "./server/clerk-webhooks";
import { coalesceWrites, compress } from "./server/compress";
import { refuseCrossSiteWrites } from "./server/cross-site";
import { installJsonConsole } from "./server/json-console";
import { finalErrors } from "./server/final-errors";
import { believeForwardedHostOnlyFromProxies } from "./server/forwarded-host";
import { localHostsOnly } from "./server/local-only";
import { locationGuard } from "./server/location-guard";
import { serveMetrics } from "./server/metrics";
import { personalAnswers } from "./server/personal-answers";
import { readiness } from "./server/readiness";
import { refuseUnusableTargets, requestHygiene } from "./server/hygiene";
import { boundRequestBodies } from "./server/request-bodies";
import { requestLog } from "./server/request-log";
import { clerkFrontendApiHost, securityHeadersFor } from "./server/security-headers";
import { createServices } from "./server/services";
import { shedLoad, sheddingLimits } from "./server/load-shedding";
import { createShutdown } from "./server/shutdown";
import { staticFiles } from "./server/static-files";

/**
 * The production HTTP server: each step below is one named middleware from
 * server/. In local mode (no Clerk keys) it also mounts the bundled Clerk
 * emulator.
 */
const root = dirname(dirname(fileURLToPath(import.meta.url)));
// React and friends pick their production builds from NODE_ENV when first
// imported (with the app build, below); unset means production here.
process.env.NODE_ENV ||= "production";

const localMode = !process.env.CLERK_PUBLISHABLE_KEY && !process.env.CLERK_SECRET_KEY;
// The image refuses local mode unless asked (LOCAL_MODE=allow): a container
// started without Clerk's keys stops, saying so, instead of serving the demo.
const refusal = localMode ? localModeRefusal(process.env) : null;
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
const local = localMode ? (await import("./server/local-mode")).prepareLocalMode(process.env) : null;
process.env.CLERK_JS ||= OWN_CLERK_JS;

let env;
try {
  env = parseEnv(process.env);
} catch (error) {
  if (error instanceof EnvError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
// From here on, with Clerk keys (production), every line written is one JSON object
// (server/json-console.ts). Local mode's output is a developer's. An invalid
// environment stays the one plain line above: a variable's name, never its value.
if (!local) installJsonConsole();

// Under `npm run dev` (remix dev), the build is loaded again after each edit.
const devOrigin = env.NODE_ENV === "development" ? (process.env.REMIX_DEV_ORIGIN ?? null) : null;
const build = await loadAppBuild(join(root, "build", "index.js"), { dev: devOrigin !== null }).catch(
  (error: unknown) => {
    if (!(error instanceof WrongBuildError)) throw error;
    console.error(error.message);
    process.exit(1);
  },
);
const { services, redis, metrics, webhooks, close: closeServices } = createServices(env);
// The emulator's control API (reset, faults…) exists only for test servers;
// its faults also reach the few fault points inside the app.
const testEmulator = local && env.CLERK_EMULATOR_CONTROL === "1" ? local.emulator : null;
if (testEmulator) services.testFaults = testEmulator.faults;
const shutdown = createShutdown();

// The browser reaches Clerk's Frontend API on its own host unless a proxy path
// (like the emulator's /__clerk) puts it on ours.
const clerkOrigin = env.CLERK_PROXY_URL?.startsWith("/")
  ? null
  : env.CLERK_PROXY_URL
    ? new URL(env.CLERK_PROXY_URL).origin
    : `https://${clerkFrontendApiHost(env.CLERK_PUBLISHABLE_KEY)}`;

// Behind a TLS-terminating proxy the browser's origin is PUBLIC_ORIGIN, not
// what this process sees (http, an internal host name).
const publicOrigin = env.PUBLIC_ORIGIN ?? null;
const https = publicOrigin?.startsWith("https:") ?? false;

const app = express();
app.disable("x-powered-by");
// Whom to believe about the client's address and protocol (rate limits, logs).
app.set("trust proxy", env.TRUST_PROXY ?? "loopback");

app.use(believeForwardedHostOnlyFromProxies());
app.use(refuseUnusableTargets());
// Whatever writes a redirect, it leads to this site, or to Clerk's Frontend API (its handshake).
// (The local emulator is Clerk's stand-in: its handshake sends browsers to the origins it allows, as Clerk's does.)
app.use(
  locationGuard({ publicOrigin, elsewhere: clerkOrigin ? [clerkOrigin] : [], exceptUnder: local ? "/__clerk/" : null }),
);
// Each request is counted under its Remix route id (which its error reports
// name too); those that never reach Remix under what answered them.
if (metrics) app.use(metrics.http((req, res) => (res.locals.route as string | undefined) ?? outsideRemix(req.path)));
if (local) app.use(localHostsOnly(env.PORT));
app.use(compress());
app.use(requestLog());
app.use(securityHeadersFor({ clerkOrigin, realClerk: !local, https: publicOrigin ? https : null, devOrigin }));
app.use(shutdown.closeWhileStopping);
app.get("/healthz", (_req, res) => void res.type("text/plain").set("Cache-Control", "no-store").send("ok"));
app.get("/readyz", readiness({ signingKeys: services.signingKeys, redis }));
app.use(staticFiles(root, { dev: devOrigin !== null }));
if (local) app.use("/__clerk", local.emulator.router);
// Past its capacity, the instance answers 503 with Retry-After at once (health and files above still
// answer, and Clerk's webhooks, which keep every instance's caches current).
// In local mode the emulator's control API (tests' and the bench's stand-in for Clerk) is Clerk's, not the app's.
app.use(
  shedLoad({
    limits: sheddingLimits(env),
    exempt: (req) => req.path === WEBHOOK_PATH || (local !== null && req.path.startsWith("/__clerk/")),
  }),
);
app.use(refuseCrossSiteWrites(publicOrigin));
// The emulator's control API (reset, faults…) exists only for test servers,
// and behind the cross-site check: no web page may wipe a developer's data.
if (testEmulator) app.use("/__clerk/_emulator", testEmulator.control);
app.use(requestHygiene());
app.use(boundRequestBodies());
app.post(
  WEBHOOK_PATH,
  ...clerkWebhooks({
    secret: env.CLERK_WEBHOOK_SIGNING_SECRET,
    ...webhooks,
    metrics: services.metrics,
  }),
);
const remix = createRequestHandler({
  build: build.remix,
  mode: env.NODE_ENV,
  getLoadContext: (req, res) =>
    createLoadContext(services, {
      requestId: res.locals.requestId as string,
      cspNonce: res.locals.cspNonce as string,
      clientIp: req.ip ?? "unknown",
      // (Remix hands loaders the page's URL, without `.data`.)
      dataRequest: req.path.endsWith(".data"),
      method: req.method,
      routeId: res.locals.route as string,
    }),
});
// The adapter hands its own errors to `next`; nothing is left to await here.
app.all("*", coalesceWrites, personalAnswers(), (req, res, next) => {
  res.locals.route = build.routeId(req.path);
  void remix(req, res, next);
});

// Errors handed to Express before Remix: a 4xx answered without a stack in the log, a 5xx logged as one line.
app.use(finalErrors());

const server = createServer(
  {
    // A client has 10 s to send a request's head: plenty for a browser or a
    // proxy (a head is one packet), and it cuts connections that dribble
    // headers or send nothing (slowloris), with a 408, before they pile up and
    // use up file descriptors. Node's default is 60 s, checked every 30 s;
    // here it is checked every second.
    headersTimeout: 10_000,
    connectionsCheckingInterval: 1_000,
    // The whole request, body included, is the body's time-out: past it, a 408
    // and the connection closed, and the room the body held (request-bodies.ts)
    // is free again. The largest body the app takes (256 KB of analytics)
    // needs 140 kbit/s; behind nginx, which buffers a body before passing it
    // on, a body arrives at once. A body that stops arriving is cut sooner, by
    // the minimum rate (body-arrival.ts). (The local emulator's 10 MB profile
    // images come over loopback.)
    requestTimeout: 15_000,
    // Idle keep-alive connections outlive the proxy's (nginx and most load
    // balancers keep them 60 s), so the proxy, not us, closes them: no request
    // is sent down a socket we are closing.
    keepAliveTimeout: 65_000,
  },
  app,
).listen(env.PORT, env.HOST, () => {
  const origin = `http://${env.HOST === "127.0.0.1" ? "localhost" : env.HOST}:${env.PORT}`;
  if (local) console.log(local.banner(origin));
  else logEvent("info", { component: "server", message: `Teamwork listening on ${origin}` });
  // What the heap may grow to (NODE_OPTIONS' --max-old-space-size and --max-semi-space-size, docs/deployment.md "Memory"): V8 keeps what it is allowed.
  // And how many malloc arenas glibc may keep (MALLOC_ARENA_MAX; unset, eight per core).
  logEvent("info", {
    component: "memory",
    heap_limit_mb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
    malloc_arena_max: process.env.MALLOC_ARENA_MAX ?? null,
  });
});

// Metrics have their own listener (loopback unless METRICS_HOST says otherwise);
// the public origin's /metrics is an ordinary 404.
const metricsServer =
  metrics && env.METRICS_PORT !== undefined
    ? await serveMetrics(metrics.registry, env.METRICS_PORT, env.METRICS_HOST)
    : null;

shutdown.listenForSignals(server, {
  // Calls the emulator was told to leave hanging would hold the server open.
  beforeClose: () => local?.emulator.faults.releaseHeld(),
  afterClose: async () => {
    // Queued analytics events go out before the process does.
    await closeServices();
    metricsServer?.close();
    local?.emulator.close();
  },
});

/**
 * The route label of a request Remix never saw: a fixed set, like route ids.
 * What is not a health check, the emulator or a file was refused on the way
 * (a cross-site write, a malformed request).
 */
function outsideRemix(path: string): string {
  if (path === "/healthz" || path === "/readyz") return "health";
  if (path === WEBHOOK_PATH) return "clerk-webhooks";
  if (path.startsWith("/__clerk")) return "clerk-emulator";
  if (/^\/(build|_clerk-js)\//.test(path) || /\.[A-Za-z0-9]+$/.test(path)) return "static";
  return "refused";
}
