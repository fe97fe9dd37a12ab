import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { createAnalytics } from "./app/lib/analytics.server";
import { EnvError, parseEnv } from "./app/lib/env.server";
import { requestIdFrom, withErrorReferences } from "./app/lib/error-reference.server";
import { ALLOWED_METHODS, sanitizeCookieHeader } from "./app/lib/request-hygiene.server";
import type { LoadContext } from "./app/lib/load-context.server";
import { logEvent } from "./app/lib/log.server";
import {
  MAX_BODY_BYTES,
  clerkFrontendApiHost,
  contentSecurityPolicy,
  createNonce,
  isCrossSiteWrite,
  securityHeaders,
} from "./app/lib/security.server";

/**
 * The production HTTP server: static files, compression, health, graceful
 * shutdown, and everything else handed to Remix. In local mode (no Clerk keys)
 * it also mounts the bundled Clerk emulator.
 */
const root = dirname(dirname(fileURLToPath(import.meta.url)));
// React and friends pick their production builds from NODE_ENV when first
// imported (with the app build, below); unset means production here.
process.env.NODE_ENV ||= "production";
const require = createRequire(import.meta.url);

const localMode = !process.env.CLERK_PUBLISHABLE_KEY && !process.env.CLERK_SECRET_KEY;
const local = localMode ? (await import("./emulator/local-mode")).prepareLocalMode(process.env) : null;

process.env.CLERK_JS ||= "/_clerk-js/clerk.browser.js";

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

const build = (await import(join(root, "build", "index.js"))) as ServerBuild;

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", "loopback");
app.use(compression());

// The browser reaches Clerk's Frontend API on its own host unless a proxy path
// (like the emulator's /__clerk) puts it on ours.
const clerkOrigin = env.CLERK_PROXY_URL?.startsWith("/")
  ? null
  : env.CLERK_PROXY_URL
    ? new URL(env.CLERK_PROXY_URL).origin
    : `https://${clerkFrontendApiHost(env.CLERK_PUBLISHABLE_KEY)}`;

// Static files and health checks are not worth a log line each.
const QUIET_PATHS = /^\/(healthz$|build\/|_clerk-js\/|favicon)/;

let stopping = false;
app.use((req, res, next) => {
  // One id per request, echoed to the client and seen by Remix (and the logs) as X-Request-Id.
  const requestId = requestIdFrom(req.get("X-Request-Id"));
  req.headers["x-request-id"] = requestId;
  res.setHeader("X-Request-Id", requestId);
  const nonce = createNonce();
  res.locals.cspNonce = nonce;
  res.set(securityHeaders(req.secure));
  res.setHeader("Content-Security-Policy", contentSecurityPolicy({ nonce, clerkOrigin, realClerk: !local, https: req.secure }));
  // While shutting down, answer and then close each connection.
  if (stopping) res.setHeader("Connection", "close");
  if (!QUIET_PATHS.test(req.path)) {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      logEvent("request", {
        request_id: requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
      });
    });
  }
  next();
});

app.get("/healthz", (_req, res) => {
  res.type("text/plain").set("Cache-Control", "no-store").send("ok");
});

// Fingerprinted build output never changes under its name.
app.use("/build", express.static(join(root, "public", "build"), { immutable: true, maxAge: "1y", index: false }));
// clerk-js, self-hosted from its npm package (it lazy-loads chunks beside itself).
app.use(
  "/_clerk-js",
  express.static(dirname(require.resolve("@clerk/clerk-js")), { maxAge: "1h", index: false, fallthrough: false }),
);
// Other public files (favicon…): only paths that name a file go looking on disk.
const publicFiles = express.static(join(root, "public"), { maxAge: "1h", index: false });
app.use((req, res, next) => (/\.[A-Za-z0-9]+$/.test(req.path) ? publicFiles(req, res, next) : next()));

if (local) app.use("/__clerk", local.emulator.router);

// One analytics client for the process, handed to loaders and actions, flushed at shutdown.
const analytics = createAnalytics(env);

function refuse(res: express.Response, status: number, title: string, message: string, headers: Record<string, string> = {}) {
  res.status(status).set({ "Cache-Control": "no-store", ...headers }).type("html");
  res.send(`<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>${title} — Teamwork</title><h1>${title}</h1><p>${message}</p><p><a href="/">Go to the home page</a></p></html>`);
}

// Before Remix reads a byte of the body: refuse bodies over the limit and
// state-changing requests made from other sites.
app.use((req, res, next) => {
  if (!ALLOWED_METHODS.includes(req.method)) {
    return refuse(res, 405, "Method not allowed", "This address only answers GET and POST.", { Allow: ALLOWED_METHODS.join(", ") });
  }
  if (req.headers.cookie) req.headers.cookie = sanitizeCookieHeader(req.headers.cookie);
  const length = req.get("Content-Length");
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
    return refuse(res, 413, "Too large", "That request is larger than this site accepts.", { Connection: "close" });
  }
  if (length === undefined && req.get("Transfer-Encoding") !== undefined) {
    return refuse(res, 411, "Length required", "Send the request with its length.", { Connection: "close" });
  }
  const ownOrigin = `${req.protocol}://${req.get("host")}`;
  if (isCrossSiteWrite({ method: req.method, origin: req.get("Origin"), fetchSite: req.get("Sec-Fetch-Site"), ownOrigin })) {
    return refuse(res, 403, "Not allowed from another site", "This form can only be sent from this site's own pages. Go back and try again from there.");
  }
  next();
});

app.all(
  "*",
  createRequestHandler({
    build: withErrorReferences(build),
    mode: env.NODE_ENV,
    getLoadContext: (req, res): LoadContext => ({ analytics, cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? "unknown" }),
  }),
);

const server = app.listen(env.PORT, env.HOST, () => {
  const origin = `http://${env.HOST === "127.0.0.1" ? "localhost" : env.HOST}:${env.PORT}`;
  if (local) console.log(local.banner(origin));
  else console.log(`Teamwork listening on ${origin}`);
});
server.keepAliveTimeout = 65_000;

function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received: finishing open requests, then exiting.`);
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  // Calls the emulator was told to leave hanging would hold the server open.
  local?.emulator.faults.releaseHeld();
  server.close(async () => {
    // Queued analytics events go out before the process does.
    await analytics?.shutdown().catch(() => undefined);
    local?.emulator.close();
    process.exit(0);
  });
  // Keep-alive connections go idle once their last response is written.
  setInterval(() => server.closeIdleConnections(), 100).unref();
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
