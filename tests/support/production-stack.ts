import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicKey } from "node:crypto";
import { spawnGroup, startRedisServer, stopGroup, waitForPort } from "./process-group";
import { startRedisCluster, type RedisCluster } from "./redis-cluster";
import { freePort, startServer, type RunningServer } from "./server";
import { newWebhookSecret } from "./webhooks";

/**
 * Production as it is deployed, on loopback: Debian's nginx terminating TLS
 * (a self-signed certificate made here) for `teamwork.test`, round-robin over
 * two instances of the built server in keys mode, a real redis-server for
 * what they share (rate limits, Clerk's answers), and a third server in local
 * mode standing in for Clerk (its /__clerk APIs, as the benchmark does), whose
 * webhooks reach the instances through nginx, as Clerk's reach a deployment.
 * Or, given `{ instances, redis: "cluster" }`, more instances sharing a Redis
 * Cluster (REDIS_CLUSTER_URLS) of three primaries and their replicas.
 */
export const PUBLIC_HOST = "teamwork.test";

/** What a stack is, whichever Redis its instances share. */
type Stack = {
  /** `https://teamwork.test:<port>`: what the browser and PUBLIC_ORIGIN use. */
  origin: string;
  nginxPort: number;
  /** The signing secret of the instances' webhook endpoint, which the stand-in for Clerk signs with. */
  webhookSecret: string;
  clerk: RunningServer;
  /** The instances behind nginx, in its round robin's order (two at the least). */
  instances: [RunningServer, RunningServer, ...RunningServer[]];
  /** Each instance's metrics listener (METRICS_PORT, on loopback), in the order of `instances`. */
  metricsPorts: [number, number, ...number[]];
  stop(): Promise<void>;
};

/** Two instances sharing one redis-server (REDIS_URL). */
export type ProductionStack = Stack & {
  redisUrl: string;
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
};

/** Instances sharing a Redis Cluster (REDIS_CLUSTER_URLS), which a test may fail nodes of. */
export type ClusterProductionStack = Stack & { cluster: RedisCluster };

/**
 * Clerk's Frontend API, reached through the app's proxy path (CLERK_PROXY_URL=/__clerk), on the
 * stand-in for Clerk at `clerkPort` (local mode, the path kept). The control API is for tests, which
 * call the stand-in straight: the proxy sends `/__clerk/_emulator/…` nowhere, whatever its case
 * (Express's routes ignore case). The nested location wins over any regular expression beside it.
 */
export function clerkProxyLocation(clerkPort: number): string {
  return `location /__clerk/ {
      location ~* ^/__clerk/_emulator(/|$) { return 404; }
      proxy_pass http://127.0.0.1:${clerkPort};
      proxy_set_header Host 127.0.0.1:${clerkPort};
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
    }`;
}

/**
 * The top of an nginx.conf that runs from `dir` as any user (its pid, logs and
 * temp files there), with `connections` per worker; an `http` block is left
 * open for the caller's servers.
 */
export function nginxConfigHead(dir: string, connections: number): string {
  return `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${connections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
`;
}

function nginxConfig(dir: string, ports: { nginx: number; hooks: number; clerk: number; instances: number[] }) {
  return `${nginxConfigHead(dir, 256)}  upstream teamwork { ${ports.instances.map((port) => `server 127.0.0.1:${port};`).join(" ")} }
  server {
    listen 127.0.0.1:${ports.nginx} ssl;
    server_name ${PUBLIC_HOST};
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    proxy_http_version 1.1;
    # (A location that sets any proxy_set_header inherits none from here: each sets all of them.)
    ${clerkProxyLocation(ports.clerk)}
    location / {
      proxy_pass http://teamwork;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
    }
  }
  # Where the stand-in for Clerk sends its webhooks (plain HTTP: it has no
  # name to reach the TLS listener by); like Clerk's, each reaches one instance.
  server {
    listen 127.0.0.1:${ports.hooks};
    location = /webhooks/clerk {
      proxy_pass http://teamwork;
      proxy_set_header Host ${PUBLIC_HOST}:${ports.nginx};
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
    }
  }
}
`;
}

export function startProductionStack(): Promise<ProductionStack>;
export function startProductionStack(options: { instances: number; redis: "cluster" }): Promise<ClusterProductionStack>;
export async function startProductionStack({
  instances: count = 2,
  redis: kind = "single",
}: { instances?: number; redis?: "single" | "cluster" } = {}): Promise<ProductionStack | ClusterProductionStack> {
  if (count < 2) throw new Error("a production stack has two instances at the least");
  const dir = mkdtempSync(join(tmpdir(), "teamwork-prod-"));
  // nginx's workers (nobody) write their temp files here.
  chmodSync(dir, 0o777);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${PUBLIC_HOST}`,
      "-addext",
      `subjectAltName=DNS:${PUBLIC_HOST}`,
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );

  const ports = { nginx: await freePort(), hooks: await freePort(), clerk: 0, instances: [] as number[] };
  const webhookSecret = newWebhookSecret();
  const origin = `https://${PUBLIC_HOST}:${ports.nginx}`;

  const redis = kind === "single" ? await startRedisServer() : null;
  const cluster = kind === "cluster" ? await startRedisCluster() : null;

  const clerk = await startServer({
    LOG_LEVEL: "silent",
    CLERK_EMULATOR_TOKEN_TTL: "3600",
    CLERK_EMULATOR_WEBHOOK_URL: `http://127.0.0.1:${ports.hooks}/webhooks/clerk`,
    CLERK_EMULATOR_WEBHOOK_SECRET: webhookSecret,
  });
  ports.clerk = clerk.port;
  const keysEnv = {
    CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from("clerk.emulator.invalid$").toString("base64")}`,
    CLERK_SECRET_KEY: `sk_live_emulator_${readFileSync(join(clerk.dataDir, "clerk-emulator-secret"), "utf8")}`,
    CLERK_API_URL: `${clerk.origin}/__clerk/api`,
    CLERK_PROXY_URL: "/__clerk",
    CLERK_JS: "/_clerk-js/clerk.browser.js",
    CLERK_JWT_KEY: createPublicKey(readFileSync(join(clerk.dataDir, "clerk-emulator-key.pem"), "utf8"))
      .export({ type: "spki", format: "pem" })
      .toString(),
    SESSION_SECRET: "production-stack-session-secret-0123456789",
    PUBLIC_ORIGIN: origin,
    // Exactly the proxy: a client on another loopback address is a client.
    TRUST_PROXY: "127.0.0.1",
    ...(redis ? { REDIS_URL: redis.url } : { REDIS_CLUSTER_URLS: cluster!.urls.join(",") }),
    CLERK_WEBHOOK_SIGNING_SECRET: webhookSecret,
    RATE_LIMIT_SCALE: "1",
    HOST: "127.0.0.1",
  };
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(await freePort());
  const metricsPorts = [...chosen] as Stack["metricsPorts"];
  const instances = (await Promise.all(
    metricsPorts.map((port) => startServer({ ...keysEnv, METRICS_PORT: String(port) })),
  )) as Stack["instances"];
  ports.instances = instances.map((instance) => instance.port);

  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, ports));
  const nginx = spawnGroup("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], dir);
  await waitForPort(ports.nginx, "nginx");

  const stack: Stack = {
    origin,
    nginxPort: ports.nginx,
    webhookSecret,
    clerk,
    instances,
    metricsPorts,
    async stop() {
      await stopGroup(nginx, "SIGQUIT");
      await Promise.all([...instances.map((i) => i.stop()), clerk.stop()]);
      await (redis ?? cluster)!.stop();
    },
  };
  if (cluster) return { ...stack, cluster };
  return {
    ...stack,
    redisUrl: redis!.url,
    stopRedis: () => redis!.stop("SIGKILL"),
    startRedis: () => redis!.start(),
  };
}

/**
 * A request to the public origin as a client elsewhere would send it: over
 * TLS to nginx, from its own loopback address (so the address the app logs
 * can be told apart from nginx's), trusting the test certificate.
 */
export function publicRequest(
  stack: Pick<Stack, "nginxPort">,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: stack.nginxPort,
        servername: PUBLIC_HOST,
        localAddress: options.from ?? "127.0.0.1",
        method: options.method ?? "GET",
        path,
        rejectUnauthorized: false,
        headers: { Host: `${PUBLIC_HOST}:${stack.nginxPort}`, ...options.headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
