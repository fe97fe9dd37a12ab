import type { RequestHandler } from "express";
import type { SharedRedis } from "../app/lib/redis-commands.server";
import type { SigningKeys } from "../app/lib/clerk/signing-keys.server";

const CHECK_TIMEOUT_MS = 2_000;
/**
 * How long one round of checks answers for. `/readyz` is reachable by anyone
 * who can reach the instance: whatever the number of hits, Redis is pinged at
 * most once a second per instance, and Clerk read at most once per 5 s (the
 * signing keys' rule for a failed read), never once its keys are known.
 */
export const READINESS_KEPT_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} timed out`)), CHECK_TIMEOUT_MS).unref(),
    ),
  ]);
}

type ReadinessInput = { signingKeys: Pick<SigningKeys, "usable">; redis: SharedRedis | null; now?: () => number };

/**
 * `/readyz`: 200 only when this instance can do its work, else 503:
 * - sessions can be verified (`CLERK_JWT_KEY`, or Clerk's keys read once:
 *   after that a Clerk outage or a 429 does not take every instance out of
 *   the pool while the keys it has still verify);
 * - Redis answers, when it is configured.
 * The failing parts are named (fixed names, never a secret, a URL or an
 * error's text) to the platform, which asks the instance directly; a request
 * that came through the proxy (`X-Forwarded-For`) is the public's, and is
 * told only ready or not. `/healthz` stays liveness and touches nothing.
 */
export function readiness({ signingKeys, redis, now = Date.now }: ReadinessInput): RequestHandler {
  const checks: [string, () => Promise<unknown>][] = [
    [
      "clerk-jwks",
      () =>
        withTimeout(signingKeys.usable(), "JWKS").then((usable) => {
          if (!usable) throw new Error("Clerk's keys cannot be read");
        }),
    ],
  ];
  if (redis) checks.push(["redis", () => withTimeout(redis.ping(), "Redis")]);
  let last: { at: number; failing: Promise<string[]> } | null = null;
  const failingParts = () => {
    if (!last || now() - last.at >= READINESS_KEPT_MS) {
      const failing = Promise.all(
        checks.map(([name, check]) =>
          check().then(
            () => null,
            () => name,
          ),
        ),
      ).then((names) => names.filter((name): name is string => name !== null));
      last = { at: now(), failing };
    }
    return last.failing;
  };
  return (req, res) => {
    const forPublic = req.get("X-Forwarded-For") !== undefined;
    void failingParts().then((failing) => {
      const text = failing.length === 0 ? "ready" : forPublic ? "not ready" : `not ready: ${failing.join(", ")}`;
      res
        .status(failing.length ? 503 : 200)
        .type("text/plain")
        .set("Cache-Control", "no-store")
        .send(`${text}\n`);
    });
  };
}
