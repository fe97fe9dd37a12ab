import { json, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import { recordUnexpectedError } from "../app/lib/unexpected-error.server";

type DataFunctionArgs = { request: Request; context: AppLoadContext };

/** The loader or action `fn`, its unexpected errors logged and answered with their reference. */
function withReference<Args extends DataFunctionArgs, Result>(
  fn: (args: Args) => Result | Promise<Result>,
  kind: "loader" | "action",
  routeId: string,
): (args: Args) => Promise<Result> {
  return async (args) => {
    try {
      return await fn(args);
    } catch (error) {
      // Responses (redirects, 4xx, 503) are answers, and an aborted request has no one to tell.
      if (!(error instanceof Error) || args.request.signal.aborted) throw error;
      recordUnexpectedError(args.request, args.context, error, { routeId, kind });
      throw json({ message: "Unexpected error", reference: args.context.requestId }, { status: 500 });
    }
  };
}

/**
 * Remix hides unexpected errors' messages in production (rightly), which also
 * hides any way to find them in the log. This turns an unexpected error in a
 * loader or action into a logged (and reported) 500 whose body is only the
 * request id: the reference the error page shows.
 */
export function withErrorReferences(build: ServerBuild): ServerBuild {
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const { loader, action } = route.module;
    const module = { ...route.module };
    if (loader) module.loader = withReference(loader, "loader", id);
    if (action) module.action = withReference(action, "action", id);
    routes[id] = { ...route, module };
  }
  return { ...build, routes };
}
