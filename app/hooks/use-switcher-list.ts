import { useCallback, useEffect, useRef, useState } from "react";
import type { OrgSummary } from "~/lib/orgs/organizations";
import { whenIdle } from "~/lib/when-idle";

const LIST_URL = "/resources/organizations";
/** The route's `max-age`: younger answers are still what the browser's cache would give. */
const FRESH_MS = 5_000;

type SwitcherList = {
  organizations: OrgSummary[] | null;
  status: "idle" | "loading" | "ready" | "failed";
  loadedAt: number;
};

/**
 * The switcher's list, from its own route so that no page waits on it:
 * fetched when the browser is idle or on first use, whichever comes first,
 * and again on use once it is a few seconds old, after a failure, or when it
 * lacks the organization on the page (just created or joined: then past the
 * browser's cache). A failure leaves the page alone; the panel says so.
 */
export function useSwitcherList(pageOrgId: string | null) {
  const [list, setList] = useState<SwitcherList>({ organizations: null, status: "idle", loadedAt: 0 });
  const latest = useRef({ list, pageOrgId });
  latest.current = { list, pageOrgId };

  const request = useCallback(() => {
    const { list, pageOrgId } = latest.current;
    if (list.status === "loading") return;
    const lacksPageOrg = !!pageOrgId && !!list.organizations && !list.organizations.some((o) => o.id === pageOrgId);
    if (list.status === "ready" && !lacksPageOrg && Date.now() - list.loadedAt < FRESH_MS) return;
    latest.current.list = { ...list, status: "loading" };
    setList((l) => ({ ...l, status: "loading" }));
    fetch(LIST_URL, { headers: { Accept: "application/json" }, cache: lacksPageOrg ? "reload" : "default" })
      .then(async (res) => {
        const { organizations } = (await res.json()) as { organizations: OrgSummary[] | null };
        if (!res.ok || !organizations) throw new Error(`organizations: ${res.status}`);
        setList({ organizations, status: "ready", loadedAt: Date.now() });
      })
      .catch(() => setList((l) => ({ ...l, status: "failed" })));
  }, []);

  useEffect(() => whenIdle(request), [request]);
  return { ...list, request };
}
