import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";

/**
 * The Remix route id a request is for ("routes/orgs.$slug._index"…), for
 * metric labels: a fixed set, unlike paths. Data requests (`/orgs/x.data`,
 * `/_root.data`) count as their page. Paths repeat (every view of an
 * organization's home), so the last thousand answers are kept.
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
  const known = new Map<string, string>();

  return (pathname) => {
    const page = pathname === "/_root.data" ? "/" : pathname.replace(/\.data$/, "");
    let id = known.get(page);
    if (id === undefined) {
      id = matchRoutes(roots, page)?.at(-1)?.route.id ?? "root";
      if (known.size >= 1_000) known.clear();
      known.set(page, id);
    }
    return id;
  };
}
