import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { logEvent } from "~/lib/log.server";
import { NonceContext } from "~/lib/nonce";
import { takeRetryAfter } from "~/lib/rate-limit.server";
import { colorSchemeHintHeaders } from "~/lib/theme.server";
import { UPSTREAM_POLICY } from "~/lib/upstream.server";

// Every 503 and 429 tells clients when to come back, whichever route produced it.
function addRetryAfter(request: Request, status: number, headers: Headers) {
  if (headers.has("Retry-After")) return;
  if (status === 503) headers.set("Retry-After", String(UPSTREAM_POLICY.unavailableRetryAfterSeconds));
  if (status === 429) headers.set("Retry-After", String(takeRetryAfter(request) ?? 60));
}

export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  addRetryAfter(request, response.status, response.headers);
  return response;
};

/** Errors outside loaders and actions (rendering, mostly): logged with the request id. */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  logEvent("unexpected_error", {
    request_id: request.headers.get("x-request-id"),
    method: request.method,
    path: new URL(request.url).pathname,
    error: error instanceof Error ? error.name : typeof error,
    message: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
};

export const streamTimeout = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  // Ask Chromium for the OS colour scheme, so "system" paints right with
  // JavaScript off; Critical-CH makes it retry the first request with the hint.
  for (const [name, value] of Object.entries(colorSchemeHintHeaders)) responseHeaders.append(name, value);
  responseHeaders.append("Vary", "Cookie");
  addRetryAfter(request, responseStatusCode, responseHeaders);

  // Crawlers get the whole document at once; browsers get it streamed.
  const readyEvent = isbot(request.headers.get("user-agent") ?? "") ? "onAllReady" : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={streamTimeout} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors after the shell are already streamed; log them once here.
          if (shellRendered) console.error(error);
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000);
  });
}
