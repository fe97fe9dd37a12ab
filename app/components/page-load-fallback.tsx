import { matchRoutes, useNavigation } from "@remix-run/react";
import { useEffect } from "react";
import { PAGE_LOAD_TIMEOUT_MS } from "~/lib/progress-settings";

type RemixWindow = Window & {
  __remixManifest?: { routes: Record<string, { path?: string; index?: boolean; parentId?: string }> };
  __remixRouteModules?: Record<string, unknown>;
  __remixRouter?: { routes: unknown[] };
};

type RouteMatchLike = { route: { id?: string } };
type MatchRoutes = (routes: unknown[], location: string) => RouteMatchLike[] | null;

/**
 * True when every route module the destination needs is in the browser. A
 * route the router does not know (with lazy route discovery on: not yet
 * discovered) counts as "not loaded".
 */
export function destinationCodeLoaded(win: RemixWindow, href: string, matchRoutes: MatchRoutes): boolean {
  const router = win.__remixRouter;
  const modules = win.__remixRouteModules;
  if (!router || !modules) return false;
  const matches = matchRoutes(router.routes, href);
  if (!matches || matches.length === 0) return false;
  return matches.every((m) => Boolean(m.route.id && modules[m.route.id]));
}

/**
 * A client-side page change that still lacks its code after
 * PAGE_LOAD_TIMEOUT_MS becomes a full document navigation to the same URL, so
 * a stalled script never strands anyone. Slow data alone never triggers it,
 * and neither do form submissions (GET or POST).
 */
export function PageLoadFallback() {
  const navigation = useNavigation();
  const isPlainNavigation = navigation.state === "loading" && !navigation.formMethod;
  const href = isPlainNavigation
    ? navigation.location.pathname + navigation.location.search + navigation.location.hash
    : null;

  useEffect(() => {
    if (!href) return;
    const timer = window.setTimeout(() => {
      if (!destinationCodeLoaded(window as RemixWindow, href, matchRoutes as MatchRoutes)) {
        window.location.assign(href);
      }
    }, PAGE_LOAD_TIMEOUT_MS);
    return () => window.clearTimeout(timer);
  }, [href]);

  return null;
}
