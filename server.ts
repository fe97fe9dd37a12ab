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

/**
 * The production HTTP server: static files, compression, health, graceful
 * shutdown, and everything else handed to Remix. In local mode (no Clerk keys)
 * it also mounts the bundled Clerk emulator.
 */
const root = dirname(dirname(fileURLToPath(import.meta.url)));
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

let stopping = false;
app.use((req, res, next) => {
  // One id per request, echoed to the client and seen by Remix (and the logs) as X-Request-Id.
  const requestId = requestIdFrom(req.get("X-Request-Id"));
  req.headers["x-request-id"] = requestId;
  res.setHeader("X-Request-Id", requestId);
  // While shutting down, answer and then close each connection.
  if (stopping) res.setHeader("Connection", "close");
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
app.use(express.static(join(root, "public"), { maxAge: "1h", index: false }));

if (local) app.use("/__clerk", local.emulator.router);

// One analytics client for the process, handed to loaders and actions, flushed at shutdown.
const analytics = createAnalytics(env);

app.all(
  "*",
  createRequestHandler({ build: withErrorReferences(build), mode: env.NODE_ENV, getLoadContext: () => ({ analytics }) }),
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
