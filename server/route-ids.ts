import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";

/**
 * The Remix route id a request is for ("routes/orgs.$slug._index"…), for
 * metric labels: a fixed set, unlike paths. Data requests (`/orgs/x.data`,
 * `/_root.data`) count as their page. Each path is matched anew (about 25
 * µs): a path is the client's choice (a slug, a case, a trailing slash), and
 * nothing a client sends is kept past its request.
 */
export function routeIdsOf(build: ServerBuild): (pathname: string) => string {
  const routes = Object.values(build.routes);
  const tree = (parentId: string | undefined): AgnosticRouteObject[] =>
    routes
      .filter((route) => route.parentId === parentId)
      .map((route) =>
        route.index
          ? { id: route.id, index: true, path: route.path }
          : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: tree(route.id) },
      );
  const roots = tree(undefined);

  return (pathname) => {
    const page = pathname === "/_root.data" ? "/" : pathname.replace(/\.data$/, "");
    return matchRoutes(roots, page)?.at(-1)?.route.id ?? "root";
  };
}
