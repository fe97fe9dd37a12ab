import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceContext } from "~/lib/http/nonce";
import { recordUnexpectedError } from "~/lib/unexpected-error.server";
import { colorSchemeHintHeaders } from "~/lib/theme/theme.server";
import { UPSTREAM_POLICY } from "~/lib/upstream/policy.server";

// Every 503 and 429 tells clients when to come back, whichever route produced
// it: what the route that gave up or refused left in the load context.
function addRetryAfter(context: AppLoadContext, status: number, headers: Headers) {
  if (headers.has("Retry-After") || (status !== 503 && status !== 429)) return;
  const fallback = status === 503 ? UPSTREAM_POLICY.unavailableRetryAfterSeconds : 60;
  headers.set("Retry-After", String(context.retryAfter.seconds ?? fallback));
}

function addServerTiming(context: AppLoadContext, headers: Headers, extra?: Record<string, number>) {
  const value = context.timing.header(extra);
  if (value) headers.append("Server-Timing", value);
}

export const handleDataRequest: HandleDataRequestFunction = (response, { context }) => {
  addRetryAfter(context, response.status, response.headers);
  addServerTiming(context, response.headers);
  return response;
};

/**
 * Errors outside loaders and actions (rendering, mostly). The 4xx answers
 * Remix makes itself (404 for an unknown route, 405 for a POST to a route
 * without an action) are answers, not errors.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted || (isRouteErrorResponse(error) && error.status < 500)) return;
  recordUnexpectedError(request, context, error, { kind: "render" });
};

export const streamTimeout = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const renderStart = performance.now();
  const nonce = loadContext.cspNonce;
  // Ask Chromium for the OS colour scheme, so "system" paints right with
  // JavaScript off; Critical-CH makes it retry the first request with the hint.
  for (const [name, value] of Object.entries(colorSchemeHintHeaders)) responseHeaders.append(name, value);
  responseHeaders.append("Vary", "Cookie");
  addRetryAfter(loadContext, responseStatusCode, responseHeaders);

  // Crawlers get the whole document at once; browsers get it streamed.
  const wholeDocument = isbot(request.headers.get("user-agent") ?? "");

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    // React calls back only after renderToPipeableStream has returned,
    // so `pipe`, `abort` and `giveUp` are set by then.
    const respond = () => {
      shellRendered = true;
      // React swallows what this callback throws: without the catch the
      // promise never settles and the request hangs. Rejected, Remix
      // renders the 500 page instead (handleError logs the reference).
      try {
        if (loadContext.testFaults?.take("app render-ready", new URL(request.url).pathname)) {
          throw new Error("Injected fault: the document's ready handler threw");
        }
        const body = new PassThrough();
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        addServerTiming(loadContext, responseHeaders, { render: performance.now() - renderStart });
        const response = new Response(createReadableStreamFromReadable(body), {
          headers: responseHeaders,
          status: responseStatusCode,
        });
        pipe(body);
        resolve(response);
      } catch (error) {
        abort();
        reject(error);
      }
    };
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={streamTimeout} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onShellReady() {
          if (!wholeDocument) respond();
        },
        onAllReady() {
          clearTimeout(giveUp);
          if (wholeDocument) respond();
        },
        onShellError(error: unknown) {
          clearTimeout(giveUp);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors after the shell are already streamed; log them once here.
          if (shellRendered) recordUnexpectedError(request, loadContext, error, { kind: "stream" });
        },
      },
    );
    // The render's last resort, cleared once it has nothing left to wait for:
    // left to fire, it would keep each finished render (its tree, data and
    // request) alive for seconds: under load, thousands in the old generation.
    const giveUp = setTimeout(abort, streamTimeout + 1000);
  });
}
