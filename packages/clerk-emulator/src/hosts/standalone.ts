import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createScriptCdn } from "../http/cdn";
import { refuseProxiedControl } from "../control";
import { createClerkEmulator, type ClerkEmulator } from "../index";
import {
  emulatorIssuer,
  emulatorPublishableKey,
  emulatorSecretKey,
  emulatorWebhookSecret,
} from "../domain/instance-keys";
import type { Settings } from "../settings";

/** The standalone emulator takes the whole of the settings: it listens, and serves Clerk's CDN, too. */
export type StandaloneOptions = Settings;

export type StandaloneEmulator = {
  emulator: ClerkEmulator;
  server: Server;
  /** Where this process listens, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** What another app puts in its `.env`. */
  env: Record<string, string>;
  /** Stops accepting, ends idle connections, flushes state. */
  close(): Promise<void>;
};

const hostOf = (origin: string) => {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
};

/** No web page may reset or fault the emulator: the control API refuses what a browser marks as cross-site. */
const sameSiteOnly: express.RequestHandler = (req, res, next) => {
  const site = req.get("sec-fetch-site");
  const origin = req.get("origin");
  if ((site && site !== "same-origin" && site !== "none") || (origin && hostOf(origin) !== req.get("host"))) {
    res.status(403).type("text/plain").send("The control API takes no cross-site requests.");
    return;
  }
  next();
};

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The `Host` values the emulator answers to: this machine's loopback names
 * on the port it listens on, the address it was told to listen on (`--host`,
 * unless every interface: on a private network its peers call it by that
 * name or address), and the host of the app's proxy (`--proxy-url`: a proxy
 * that keeps the browser's `Host`, as Vite's does unless told otherwise).
 */
export function answeredHosts(listenHost: string, port: number, proxyUrl: string | null): Set<string> {
  const bracketed = listenHost.includes(":") && !listenHost.startsWith("[") ? `[${listenHost}]` : listenHost;
  const names = [...LOOPBACK_NAMES, ...(WILDCARDS.has(bracketed) ? [] : [bracketed])];
  const hosts = new Set(names.map((name) => `${name.toLowerCase()}:${port}`));
  if (proxyUrl) hosts.add(new URL(proxyUrl).host.toLowerCase());
  return hosts;
}

/**
 * Every request but the health check must name one of `hosts`: a web page
 * that points a name of its own at this machine (DNS rebinding) reaches the
 * emulator under that name, and would otherwise read its state, sign in
 * through it and drive its control API. The raw `Host` header is read, not
 * Express's idea of the host: a same-origin page may send any
 * `X-Forwarded-Host`, and loopback peers are believed about it.
 */
function knownHostsOnly(hosts: () => Set<string>): express.RequestHandler {
  return (req, res, next) => {
    if (hosts().has((req.headers.host ?? "").toLowerCase())) return next();
    res
      .status(421)
      .type("text/plain")
      .set("Cache-Control", "no-store")
      .send(
        "This Clerk emulator answers only at its own loopback address (or the host given with --host or --proxy-url).\n",
      );
  };
}

/**
 * The control API answers only at the emulator's own names (loopback, or
 * `--host`), never at the `--proxy-url` host: a request naming that host came
 * through the app's proxy, whoever sent it.
 */
function ownHostsOnly(hosts: () => Set<string>): express.RequestHandler {
  return (req, res, next) => {
    if (hosts().has((req.headers.host ?? "").toLowerCase())) return next();
    refuseProxiedControl(
      res,
      "The control API answers only at the emulator's own address, never through a proxy",
      "This request names the app's proxy host. The control API (/_emulator/…) is for tests only: call the emulator's own address (http://127.0.0.1:<port>/_emulator/…) from the test.",
    );
  };
}

/**
 * The emulator on its own port: the same `createClerkEmulator` local mode
 * mounts in the app, with the Frontend API at `/v1/…` (what Clerk's proxy
 * forwards to, the proxy's path stripped), the Backend API at `/api/v1/…`
 * (`CLERK_API_URL=<url>/api`), Clerk's CDN for clerk-js and `@clerk/ui` at
 * `/npm/@clerk/…` and, if asked, the control API at `/_emulator/…`.
 */
export async function startStandaloneEmulator(options: StandaloneOptions): Promise<StandaloneEmulator> {
  const secretKey = emulatorSecretKey(options.dataDir, options.development);
  const webhookSecret = options.webhookSecret || emulatorWebhookSecret(options.dataDir);
  const allowedOrigins = [...options.allowedOrigins];
  if (options.proxyUrl) allowedOrigins.push(new URL(options.proxyUrl).origin);

  const emulator = createClerkEmulator({
    ...options,
    mountPath: "",
    secretKey,
    issuer: emulatorIssuer(options.development),
    frontendApiUrl: options.proxyUrl?.replace(/\/+$/, "") || undefined,
    allowedOrigins,
    webhooks: options.webhookUrl ? { url: options.webhookUrl, secret: webhookSecret } : undefined,
  });

  const app = express();
  app.disable("x-powered-by");
  // The app's reverse proxy runs beside it (same host, a container network): believe its
  // X-Forwarded-Host/-Proto/-For, as Clerk believes its documented proxy's.
  app.set("trust proxy", "loopback, linklocal, uniquelocal");
  app.get("/healthz", (_req, res) => void res.type("text/plain").set("Cache-Control", "no-store").send("ok"));
  // Known once the server listens (`--port 0` picks the port); no request comes before.
  let hosts = new Set<string>();
  let ownHosts = new Set<string>();
  app.use(knownHostsOnly(() => hosts));
  // Not at the proxy's host: a proxy that keeps the browser's `Host` (Vite's, by default) may add no header to tell by.
  if (options.control)
    app.use(
      "/_emulator",
      ownHostsOnly(() => ownHosts),
      sameSiteOnly,
      emulator.control,
    );
  app.use(createScriptCdn({ dirs: options.npmDirs }));
  app.use(emulator.router);

  const server = createServer({ headersTimeout: 10_000, requestTimeout: 60_000, keepAliveTimeout: 65_000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  hosts = answeredHosts(options.host, port, options.proxyUrl);
  ownHosts = answeredHosts(options.host, port, null);
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${port}`;

  const env: Record<string, string> = {
    CLERK_PUBLISHABLE_KEY: emulatorPublishableKey(options.development),
    CLERK_SECRET_KEY: secretKey,
    // One line, which any env file holds: @clerk/backend drops the PEM's line breaks anyway.
    CLERK_JWT_KEY: emulator.key.publicKeyPem.replace(/\r?\n/g, ""),
    CLERK_WEBHOOK_SIGNING_SECRET: webhookSecret,
    CLERK_API_URL: `${url}/api`,
    CLERK_PROXY_URL: options.proxyUrl ?? "/__clerk",
  };

  let closing: Promise<void> | null = null;
  return {
    emulator,
    server,
    url,
    env,
    close() {
      closing ??= new Promise<void>((resolve) => {
        emulator.faults.releaseHeld();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Connections still busy after a moment (a held call, a slow client) are cut.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }).finally(() => emulator.close());
      return closing;
    },
  };
}
