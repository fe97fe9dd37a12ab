import { useLocation, useRouteLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { sendBrowserErrorsTo } from "~/lib/analytics/browser-errors";
import type { AnalyticsSettings } from "~/lib/analytics/settings.server";
import { whenIdle } from "~/lib/when-idle";
import type { loader as orgLoader } from "~/routes/orgs.$slug";

type Loaded = Awaited<ReturnType<typeof import("~/lib/analytics/posthog-client").startPostHog>>;

// Loaded once, after hydration and when the browser is idle, so the first
// page never waits for it; without a key it is never requested at all. The
// scrubber of error reports and posthog-js's settings come with it: nothing is
// sent before, and none of it is in the first-load JavaScript.
let loading: Promise<Loaded> | null = null;
function loadPostHog(key: string): Promise<Loaded> {
  loading ??= import("~/lib/analytics/posthog-client").then(({ startPostHog }) => startPostHog(key));
  return loading;
}

/** The organization in the URL, from its layout's data (not the session's active one). */
function useUrlOrganizationId(): string | null {
  const data = useRouteLoaderData<typeof orgLoader>("routes/orgs.$slug");
  return data?.org.id ?? null;
}

/**
 * One `$pageview` per page (the first and each client-side change), with the
 * Clerk user id as the identity (nothing else about the person) and the URL's
 * organization as the group; `reset()` once the person has signed out.
 */
export function Analytics({ settings, userId }: { settings: AnalyticsSettings; userId: string | null }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const client = loaded?.client ?? null;
  const { pathname, search } = useLocation();
  const orgId = useUrlOrganizationId();
  const lastPage = useRef<string | null>(null);
  const { key } = settings;

  useEffect(() => {
    if (!key) {
      // Opted out (or Do Not Track) while the page was open: stop at once.
      sendBrowserErrorsTo(null);
      if (client) client.opt_out_capturing();
      return;
    }
    if (client) {
      if (client.has_opted_out_capturing()) client.opt_in_capturing({ captureEventName: false });
      return;
    }
    let cancelled = false;
    const cancelIdle = whenIdle(() => void loadPostHog(key).then((both) => !cancelled && setLoaded(both)));
    return () => {
      cancelled = true;
      cancelIdle();
    };
  }, [key, client]);

  useEffect(() => {
    if (!loaded || !key) return;
    const { client } = loaded;
    if (userId) {
      if (client.get_distinct_id() !== userId) client.identify(userId);
    } else if (client.get_property("$user_state") === "identified") {
      client.reset();
    }
    // Error reports (and those that waited for posthog-js) go out under the person's identity.
    sendBrowserErrorsTo(loaded);
  }, [loaded, key, userId]);

  useEffect(() => {
    if (!client || !key) return;
    if (orgId) client.group("organization", orgId);
    else client.resetGroups();
    const page = pathname + search;
    if (lastPage.current === page) return;
    lastPage.current = page;
    client.capture("$pageview");
  }, [client, key, pathname, search, orgId, userId]);

  return null;
}
