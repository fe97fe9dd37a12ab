import type { RequestHandler } from "express";
import type { Redis } from "ioredis";
import type { ClerkClient } from "../app/lib/clerk/client.server";

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} timed out`)), CHECK_TIMEOUT_MS).unref(),
    ),
  ]);
}

type ReadinessInput = { jwtKey: string | undefined; clerk: ClerkClient; redis: Redis | null };

/**
 * `/readyz`: 200 only when this instance can do its work, else 503 naming the
 * part that cannot (never a secret, a URL or an error's text):
 * - sessions can be verified: `CLERK_JWT_KEY` is set, or Clerk's JWKS answers;
 * - Redis answers, when it is configured.
 * `/healthz` stays liveness (the process answers) and touches nothing.
 */
export function readiness({ jwtKey, clerk, redis }: ReadinessInput): RequestHandler {
  const checks: [string, () => Promise<unknown>][] = [
    ["clerk-jwks", () => (jwtKey ? Promise.resolve() : withTimeout(clerk.jwks.getJwks(), "JWKS"))],
  ];
  if (redis) checks.push(["redis", () => withTimeout(redis.ping(), "Redis")]);
  return (_req, res) => {
    void Promise.all(
      checks.map(([name, check]) =>
        check().then(
          () => [name, "ok"] as const,
          () => [name, "failing"] as const,
        ),
      ),
    ).then((results) => {
      const failing = results.filter(([, state]) => state === "failing").map(([name]) => name);
      res
        .status(failing.length ? 503 : 200)
        .type("text/plain")
        .set("Cache-Control", "no-store")
        .send(failing.length ? `not ready: ${failing.join(", ")}\n` : "ready\n");
    });
  };
}
