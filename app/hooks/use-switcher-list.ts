import { useCallback, useEffect, useRef, useState } from "react";
import { ORGANIZATIONS_CHANGED, type MyInvitation, type OrgSummary } from "~/lib/orgs/organizations";
import { whenIdle } from "~/lib/when-idle";

const LIST_URL = "/resources/organizations";
/** The route's `max-age`: younger answers are still what the browser's cache would give. */
const FRESH_MS = 5_000;

type SwitcherList = {
  organizations: OrgSummary[] | null;
  /** Invitations waiting for the person; null until loaded, or if they could not be. */
  invitations: MyInvitation[] | null;
  status: "idle" | "loading" | "ready" | "failed";
  loadedAt: number;
};

/**
 * The switcher's list (and the invitations waiting), from its own route so
 * that no page waits on it: fetched when the browser is idle or on first use, whichever comes first,
 * and again on use once it is a few seconds old, after a failure, or when it
 * lacks the organization on the page (just created or joined). It is read
 * again at once, past the browser's cache, when it still holds one the
 * person just left or deleted (`goneOrgId`), or when Clerk's components say
 * they changed one. A failure leaves the page alone; the panel says so.
 */
export function useSwitcherList(pageOrgId: string | null, goneOrgId: string | null = null) {
  const [list, setList] = useState<SwitcherList>({
    organizations: null,
    invitations: null,
    status: "idle",
    loadedAt: 0,
  });
  const latest = useRef({ list, pageOrgId, goneOrgId, changed: false });
  latest.current = { ...latest.current, list, pageOrgId, goneOrgId };

  const request = useCallback(() => {
    const { list, pageOrgId, goneOrgId, changed } = latest.current;
    if (list.status === "loading") return;
    const has = (id: string | null) => !!id && !!list.organizations?.some((o) => o.id === id);
    const outdated = changed || (!!pageOrgId && !!list.organizations && !has(pageOrgId)) || has(goneOrgId);
    if (list.status === "ready" && !outdated && Date.now() - list.loadedAt < FRESH_MS) return;
    latest.current.changed = false;
    latest.current.list = { ...list, status: "loading" };
    setList((l) => ({ ...l, status: "loading" }));
    const url = goneOrgId ? `${LIST_URL}?left=${encodeURIComponent(goneOrgId)}` : LIST_URL;
    fetch(url, { headers: { Accept: "application/json" }, cache: outdated ? "reload" : "default" })
      .then(async (res) => {
        const { organizations, invitations } = (await res.json()) as Pick<
          SwitcherList,
          "organizations" | "invitations"
        >;
        if (!res.ok || !organizations) throw new Error(`organizations: ${res.status}`);
        setList({ organizations, invitations, status: "ready", loadedAt: Date.now() });
      })
      .catch(() => setList((l) => ({ ...l, status: "failed" })));
  }, []);

  useEffect(() => whenIdle(request), [request]);
  // Left or deleted: drop it now if the list holds it (request() checks).
  useEffect(() => {
    if (goneOrgId) request();
  }, [goneOrgId, request]);
  useEffect(() => {
    const changed = () => {
      latest.current.changed = true;
      request();
    };
    window.addEventListener(ORGANIZATIONS_CHANGED, changed);
    return () => window.removeEventListener(ORGANIZATIONS_CHANGED, changed);
  }, [request]);
  return { ...list, request };
}
