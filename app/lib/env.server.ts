import { publicKeyPem } from "./clerk/signing-keys.server";
import { upstreamUrls } from "./upstream/upstream-url.server";
import { z } from "zod";

/**
 * The server's environment, validated once. A missing or malformed value
 * stops start-up with one line naming the variable (see `formatEnvError`).
 */
/** Clerk's JWT public key, in any form Clerk's SDK takes, as the multi-line PEM Node's crypto reads. */
const jwtPublicKey = z.string().transform((value, ctx) => {
  const pem = publicKeyPem(value);
  if (pem === null) {
    ctx.addIssue({
      code: "custom",
      message:
        "must be a PEM block (-----BEGIN PUBLIC KEY-----…) holding Clerk's RSA public key (Clerk Dashboard → API keys → JWT public key)",
    });
    return z.NEVER;
  }
  return pem;
});

const absoluteUrl = z.string().url("must be an absolute URL");

/** `https://teamwork.example.com`: a scheme and a host (and port), nothing after. */
const origin = z
  .string()
  .refine((v) => /^https?:\/\/[^/?#\s]+$/.test(v.replace(/\/$/, "")) && URL.canParse(v), {
    message: "must be an origin such as https://teamwork.example.com (no path)",
  })
  .transform((v) => new URL(v).origin);

const redisUrl = z
  .string()
  .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), "must be a redis:// or rediss:// URL");

const TRUST_KEYWORDS = new Set(["loopback", "linklocal", "uniquelocal"]);
const IPV4_CIDR = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IPV6_CIDR = /^[0-9a-f:.]*:[0-9a-f:.]*(\/\d{1,3})?$/i;

/**
 * Which proxies to believe about the client's address and protocol: a hop
 * count (`1` for one load balancer) or a comma list of addresses, CIDRs and
 * Express's names (`loopback`, `uniquelocal`…). Passed to Express's `trust proxy`.
 */
const trustProxy = z
  .string()
  .trim()
  .refine(
    (v) =>
      /^\d{1,2}$/.test(v) ||
      v.split(",").every((part) => {
        const p = part.trim();
        return TRUST_KEYWORDS.has(p) || IPV4_CIDR.test(p) || IPV6_CIDR.test(p);
      }),
    "must be a hop count (like 1) or a comma list of addresses, CIDRs, loopback, linklocal or uniquelocal",
  )
  .transform((v): number | string[] => (/^\d+$/.test(v) ? Number(v) : v.split(",").map((p) => p.trim())));

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    CLERK_PUBLISHABLE_KEY: z
      .string()
      .regex(/^pk_(live|test)_[A-Za-z0-9+/=_-]+$/, "must look like pk_live_… or pk_test_…")
      .refine(isDecodablePublishableKey, "does not decode to a Clerk Frontend API host"),
    CLERK_SECRET_KEY: z.string().regex(/^sk_(live|test)_\S+$/, "must look like sk_live_… or sk_test_…"),
    CLERK_JWT_KEY: jwtPublicKey.optional(),
    CLERK_API_URL: absoluteUrl.optional(),
    CLERK_PROXY_URL: z
      .string()
      .refine((v) => v.startsWith("/") || /^https?:\/\//.test(v), "must be an absolute URL or a path starting with /")
      .optional(),
    CLERK_JS: z.string().min(1).optional(),
    SESSION_SECRET: z.string().min(32, "must be at least 32 characters"),
    POSTHOG_KEY: z.string().min(1).optional(),
    POSTHOG_HOST: absoluteUrl
      .refine(isUpstreamBase, "must be an http(s) URL without credentials, query or fragment")
      .optional(),
    PORT: z.coerce.number().int("must be a whole number").min(1).max(65535).default(3000),
    HOST: z.string().min(1).default("0.0.0.0"),
    CLERK_LOCAL_EMULATOR: z.enum(["1"]).optional(),
    RATE_LIMIT_SCALE: z.coerce.number().positive("must be a positive number").max(1_000_000).default(1),
    PUBLIC_ORIGIN: origin.optional(),
    // Other origins whose pages may hold this app's sessions (Clerk's satellite domains): a token's `azp`.
    CLERK_AUTHORIZED_PARTIES: z
      .string()
      .transform((v) => v.split(",").map((part) => part.trim()))
      .pipe(z.array(origin).min(1))
      .optional(),
    TRUST_PROXY: trustProxy.optional(),
    REDIS_URL: redisUrl.optional(),
    // Some nodes of a Redis Cluster (the client learns the rest from them).
    REDIS_CLUSTER_URLS: z
      .string()
      .transform((v) => v.split(",").map((part) => part.trim()))
      .refine(
        (urls) => urls.every((url) => redisUrl.safeParse(url).success),
        "must be comma-separated redis:// or rediss:// URLs",
      )
      .optional(),
    // Clerk Dashboard → Webhooks → the endpoint's signing secret (docs/deployment.md).
    CLERK_WEBHOOK_SIGNING_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, "must be the endpoint's signing secret (whsec_…)")
      .optional(),
    // The fleet's Clerk Backend API calls per 10 s (app/lib/upstream/call-budget.server.ts): by default
    // 90% of Clerk's limit for the key (1,000 for pk_live_, 100 for pk_test_), none in local mode.
    CLERK_API_CALLS_PER_10S: z.coerce
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(100_000, "must be at most 100000")
      .optional(),
    CLERK_EMULATOR_CONTROL: z.enum(["1"]).optional(),
    // Load shedding (server/load-shedding.ts, which says why the defaults are 128 and 150): past either,
    // a request for the app is answered 503 with Retry-After at once. 0 turns one off.
    SHED_MAX_IN_FLIGHT: z.coerce.number().int("must be a whole number").min(0).max(100_000).optional(),
    SHED_EVENT_LOOP_DELAY_MS: z.coerce.number().int("must be a whole number").min(0).max(60_000).optional(),
    METRICS_PORT: z.coerce.number().int("must be a whole number").min(1).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_URL !== undefined && env.REDIS_CLUSTER_URLS !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["REDIS_CLUSTER_URLS"],
        message: "cannot be set with REDIS_URL (one Redis, or one cluster)",
      });
    }
    if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({
        code: "custom",
        path: ["METRICS_PORT"],
        message: "must differ from PORT (metrics are never public)",
      });
    }
    const local = env.CLERK_LOCAL_EMULATOR === "1";
    if (env.NODE_ENV === "production" && !local && !env.CLERK_PUBLISHABLE_KEY.startsWith("pk_live_")) {
      ctx.addIssue({
        code: "custom",
        path: ["CLERK_PUBLISHABLE_KEY"],
        message: "must be a production key (pk_live_…) when NODE_ENV=production",
      });
    }
    // With real Clerk the server is deployed: it must know its public origin
    // (writes come only from there) and which proxies to believe.
    if (!local) {
      for (const name of ["PUBLIC_ORIGIN", "TRUST_PROXY"] as const) {
        if (env[name] === undefined) {
          ctx.addIssue({ code: "custom", path: [name], message: "is required when Clerk keys are set (production)" });
        }
      }
    }
  });

export type Env = z.infer<typeof EnvSchema>;

/** A base the analytics proxy can build every upstream URL on (upstream-url.server). */
function isUpstreamBase(url: string): boolean {
  try {
    upstreamUrls(url);
    return true;
  } catch {
    return false;
  }
}

function isDecodablePublishableKey(key: string): boolean {
  const encoded = key.split("_")[2] ?? "";
  try {
    return /^[a-z0-9.-]+(:\d+)?\$$/i.test(Buffer.from(encoded, "base64").toString("utf8"));
  } catch {
    return false;
  }
}

/** Empty strings count as unset, as in most `.env` tooling. */
function withoutEmpty(source: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(source).filter((e): e is [string, string] => Boolean(e[1])));
}

export class EnvError extends Error {}

/**
 * Why this process may not run local mode (started without Clerk's keys), or
 * null. `LOCAL_MODE=refuse` (the container image's setting) makes a missing
 * key a start-up error instead of the emulator with its demo accounts;
 * `allow` (the default, as `npm start` on a laptop) runs local mode.
 */
export function localModeRefusal(source: Record<string, string | undefined>): string | null {
  const mode = source.LOCAL_MODE || "allow";
  if (mode === "allow") return null;
  if (mode !== "refuse") return "Invalid environment: LOCAL_MODE must be allow or refuse";
  return "Invalid environment: CLERK_PUBLISHABLE_KEY is required but not set (LOCAL_MODE=refuse: set Clerk's keys, or LOCAL_MODE=allow to run the bundled Clerk emulator on loopback)";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(withoutEmpty(source));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // The variable, not the part of it (the second origin of a list…).
  const name = issue?.path[0]?.toString() || "environment";
  const problem =
    issue?.code === "invalid_type" && issue.received === "undefined" ? "is required but not set" : issue?.message;
  throw new EnvError(`Invalid environment: ${name} ${problem}`);
}

let cached: Env | undefined;

/** The validated environment; parsed on first use, then cached. */
export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Local mode: the bundled Clerk emulator stands in for Clerk, and no email is ever sent. */
export function isLocalEmulator(env: Env = getEnv()): boolean {
  return env.CLERK_LOCAL_EMULATOR === "1";
}

export function isProduction(env: Env = getEnv()): boolean {
  return env.NODE_ENV === "production" && env.CLERK_LOCAL_EMULATOR !== "1";
}
