import type { AppLoadContext } from "@remix-run/node";
import { getEnv } from "../env.server";
import { logEvent } from "../log.server";
import { readCappedBody } from "../upstream/capped-body.server";
import { fetchWithRetry, UPSTREAM_POLICY, UpstreamUnavailableError } from "../upstream/policy.server";
import { UnsafeUpstreamPathError, upstreamUrls, type UpstreamUrls } from "../upstream/upstream-url.server";
import { DEFAULT_POSTHOG_HOST } from "./analytics.server";
import { judgeBatch } from "./ingest-batch.server";
import { analyticsAllowed } from "./privacy.server";
import { batchOverCaps, requestsOverLimit } from "./relay-limits.server";

/** The largest batch taken: posthog-js, uncompressed, sends page views and error reports, a few KB each. */
export const INGEST_MAX_BODY_BYTES = 256 * 1024;
// PostHog's capture endpoints answer a few bytes (`{"status":1}`, or a short error).
const MAX_ANSWER_BYTES = 64 * 1024;
// Only what PostHog needs to read the request: never our cookies, auth or IP.
const FORWARDED_HEADERS = ["content-type", "accept"];

/**
 * What the browser's posthog-js, as this app starts it (posthog-client.ts),
 * sends here: events, to `/e/`, or to `/i/v0/e/` when PostHog's remote config
 * names that endpoint. Flags, remote config, recordings (`/s/`), surveys and
 * scripts (`/static/`, `/array/`) are all turned off there, so they have no
 * path here either: turning one on means adding its path, on purpose.
 */
export const INGESTION_PATHS: ReadonlySet<string> = new Set(["e/", "i/v0/e/"]);

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(text, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });

// `POSTHOG_HOST` is fixed for the process: its origin is checked once, on first use.
let posthog: { host: string; urls: UpstreamUrls } | undefined;
function posthogUrls(host: string): UpstreamUrls {
  if (posthog?.host !== host) posthog = { host, urls: upstreamUrls(host) };
  return posthog.urls;
}

/** PostHog's answer, or a 502 when it is one we will not pass on (a redirect, or more than the cap). */
async function relay(upstream: Response, path: string): Promise<Response> {
  const refuse = (reason: string) => {
    logEvent("upstream_refused", { upstream: "posthog.ingest", path, status: upstream.status, reason });
    return plain(502, "Analytics answered oddly");
  };
  // Never followed: where the request goes is ours to decide, not PostHog's.
  if (upstream.type === "opaqueredirect" || (upstream.status >= 300 && upstream.status < 400)) {
    await upstream.body?.cancel();
    return refuse("redirect");
  }
  const answer = await readCappedBody(upstream, {
    maxBytes: MAX_ANSWER_BYTES,
    timeoutMs: UPSTREAM_POLICY.attemptTimeoutMs,
  });
  if (!answer.ok) return refuse(answer.reason);
  // (A 204 may not have a body, not even an empty one.)
  return new Response(answer.bytes.byteLength ? answer.bytes : null, {
    status: upstream.status,
    headers: {
      "Content-Type": upstream.headers.get("content-type") ?? "application/json",
      "Cache-Control": "no-store",
    },
  });
}

const REFUSALS = {
  compressed: "Send events uncompressed",
  unreadable: "Not a batch of events",
  "no-events": "No events",
  "no-token": "Events without a project key",
  "other-project": "Events for another project are not relayed",
} as const;

/**
 * Forwards one batch of this project's events to `POSTHOG_HOST`, as the
 * browser sent it, minus everything personal; only POSTs to PostHog's
 * ingestion paths, within limits on requests, events and bytes per client
 * address and on events and bytes for the fleet (relay-limits.server.ts), and
 * only events whose project key is POSTHOG_KEY (ingest-batch.server.ts).
 */
export async function forwardToPostHog(request: Request, path: string, context: AppLoadContext): Promise<Response> {
  const env = getEnv();
  if (!env.POSTHOG_KEY) return plain(404, "Not found");
  if (!["GET", "POST"].includes(request.method)) return plain(405, "Method not allowed", { Allow: "POST" });
  const limited = await requestsOverLimit(context);
  if (limited) return limited;
  // A person who opted out sends nothing on; answer as PostHog would, so the library stays quiet.
  if (!analyticsAllowed(request)) return plain(200, "1");

  let target: URL;
  try {
    target = posthogUrls(env.POSTHOG_HOST ?? DEFAULT_POSTHOG_HOST).build(path, new URL(request.url).search);
  } catch (error) {
    if (error instanceof UnsafeUpstreamPathError) return plain(400, "Bad path");
    throw error;
  }
  if (!INGESTION_PATHS.has(path)) return plain(404, "Not found");
  // posthog-js sends its events in a POST's body; a GET's (`?data=`) would bypass the checks below.
  if (request.method !== "POST") return plain(405, "Method not allowed", { Allow: "POST" });

  const declared = Number(request.headers.get("content-length") ?? "0");
  // The rest of the body is never read: close the connection rather than drain it.
  if (declared > INGEST_MAX_BODY_BYTES) return plain(413, "Too large", { Connection: "close" });
  const body = await request.arrayBuffer();
  if (body.byteLength > INGEST_MAX_BODY_BYTES) return plain(413, "Too large");
  const verdict = judgeBatch({
    body: new Uint8Array(body),
    contentEncoding: request.headers.get("content-encoding"),
    query: target.searchParams,
    projectKey: env.POSTHOG_KEY,
  });
  if (!verdict.ok) {
    logEvent("analytics_refused", { path, reason: verdict.reason });
    return plain(verdict.status, REFUSALS[verdict.reason]);
  }
  // What is counted is what would be relayed: the events read, the bytes as they go on.
  const capped = await batchOverCaps(context, { events: verdict.events, bytes: body.byteLength });
  if (capped) return capped;

  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  try {
    const upstream = await fetchWithRetry("posthog.ingest", target, {
      method: request.method,
      headers,
      body,
      redirect: "manual",
    });
    return await relay(upstream, path);
  } catch (error) {
    if (error instanceof UpstreamUnavailableError)
      return plain(503, "Analytics are unavailable", { "Retry-After": "30" });
    throw error;
  }
}
