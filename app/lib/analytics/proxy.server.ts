import { getEnv } from "../env.server";
import { fetchWithRetry, UpstreamUnavailableError } from "../upstream/policy.server";
import { DEFAULT_POSTHOG_HOST } from "./analytics.server";
import { analyticsAllowed } from "./privacy.server";

const MAX_BODY_BYTES = 1_000_000;
// Only what PostHog needs to read the request: never our cookies, auth or IP.
const FORWARDED_HEADERS = ["content-type", "content-encoding", "accept"];

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(text, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });

/** Forwards one analytics request to `POSTHOG_HOST`, as the browser sent it, minus everything personal. */
export async function forwardToPostHog(request: Request, path: string): Promise<Response> {
  const env = getEnv();
  if (!env.POSTHOG_KEY) return plain(404, "Not found");
  if (!["GET", "POST"].includes(request.method)) return plain(405, "Method not allowed", { Allow: "GET, POST" });
  // A person who opted out sends nothing on; answer as PostHog would, so the library stays quiet.
  if (!analyticsAllowed(request)) return plain(200, "1");
  if (!/^[A-Za-z0-9/_.-]{0,200}$/.test(path) || path.split("/").includes("..")) return plain(400, "Bad path");

  let body: ArrayBuffer | undefined;
  if (request.method === "POST") {
    const declared = Number(request.headers.get("content-length") ?? "0");
    // The rest of the body is never read: close the connection rather than drain it.
    if (declared > MAX_BODY_BYTES) return plain(413, "Too large", { Connection: "close" });
    body = await request.arrayBuffer();
    if (body.byteLength > MAX_BODY_BYTES) return plain(413, "Too large");
  }

  const target = new URL(
    `${path}${new URL(request.url).search}`,
    `${(env.POSTHOG_HOST ?? DEFAULT_POSTHOG_HOST).replace(/\/?$/, "/")}`,
  );
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  try {
    const upstream = await fetchWithRetry("posthog.ingest", target, { method: request.method, headers, body });
    return new Response(upstream.body, {
      status: upstream.status,
      headers: {
        "Content-Type": upstream.headers.get("content-type") ?? "application/json",
        "Cache-Control": "no-store",
      },
    });
  } catch (error) {
    if (error instanceof UpstreamUnavailableError)
      return plain(503, "Analytics are unavailable", { "Retry-After": "30" });
    throw error;
  }
}
