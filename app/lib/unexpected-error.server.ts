import type { AppLoadContext } from "@remix-run/node";
import { logUnexpectedError } from "./log.server";
import { upstreamCallFrames } from "./upstream/refusals.server";

/**
 * One failed read can fail several loaders of a request (the layout's and the
 * page's share it): it is one error, logged and reported once per request.
 * (Requests that shared one read each answered with a 500 page: each counts.)
 */
function firstTimeInRequest(context: AppLoadContext, error: unknown): boolean {
  if (typeof error !== "object" || error === null) return true;
  if (context.recordedErrors.has(error)) return false;
  context.recordedErrors.add(error);
  return true;
}

/**
 * An error that ends in the 500 page: one `unexpected_error` log line and,
 * when analytics are on, one report to PostHog's error tracking, both under
 * the request id that the page shows the person as its reference.
 */
export function recordUnexpectedError(
  request: Request,
  context: AppLoadContext,
  error: unknown,
  { kind, routeId = context.routeId }: { kind: "loader" | "action" | "render" | "stream"; routeId?: string },
): void {
  if (!firstTimeInRequest(context, error)) return;
  const traced = withCallFrames(error);
  logUnexpectedError(request, context.requestId, traced, { route: routeId, kind });
  context.analytics?.reportError(request, traced, {
    requestId: context.requestId,
    routeId,
    method: request.method,
    status: 500,
    userId: context.person.userId,
  });
}

/**
 * An upstream's error with the app's frames that made the call added to its
 * stack (the SDK's own stack ends in the retry loop), so a log line or a
 * report leads to the loader or action; any other error as it is.
 */
function withCallFrames(error: unknown): unknown {
  const frames = upstreamCallFrames(error);
  if (!(error instanceof Error) || frames.length === 0) return error;
  const traced = new Error(error.message);
  traced.name = error.name;
  traced.stack = `${error.stack ?? `${error.name}: ${error.message}`}\n${frames.join("\n")}`;
  return traced;
}
