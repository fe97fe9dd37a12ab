import { randomUUID } from "node:crypto";
import { json, type ServerBuild } from "@remix-run/node";
import { logEvent } from "./log.server";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The id that ties a request to its log lines: a sane incoming `X-Request-Id`, or a new one. */
export function requestIdFrom(incoming: string | undefined | null): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

type DataFunction = (args: { request: Request }) => unknown;

function withReference(fn: DataFunction, kind: "loader" | "action", routeId: string): DataFunction {
  return async (args) => {
    try {
      return await fn(args);
    } catch (error) {
      // Responses (redirects, 4xx, 503) are answers, and an aborted request has no one to tell.
      if (!(error instanceof Error) || args.request.signal.aborted) throw error;
      const reference = args.request.headers.get("x-request-id") ?? randomUUID();
      const url = new URL(args.request.url);
      logEvent("unexpected_error", {
        request_id: reference,
        route: routeId,
        kind,
        method: args.request.method,
        path: url.pathname,
        error: error.name,
        message: error.message,
        stack: error.stack,
      });
      throw json({ message: "Unexpected error", reference }, { status: 500 });
    }
  };
}

/**
 * Remix hides unexpected errors' messages in production (rightly), which also
 * hides any way to find them in the log. This turns an unexpected error in a
 * loader or action into a logged 500 whose body is only the request id: the
 * reference the error page shows.
 */
export function withErrorReferences(build: ServerBuild): ServerBuild {
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const module = { ...route.module } as Record<string, unknown>;
    for (const kind of ["loader", "action"] as const) {
      const fn = module[kind];
      if (typeof fn === "function") module[kind] = withReference(fn as DataFunction, kind, id);
    }
    routes[id] = { ...route, module: module as unknown as typeof route.module };
  }
  return { ...build, routes };
}
