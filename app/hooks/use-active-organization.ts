import { useAuth, useClerk } from "@clerk/clerk-react";
import { useEffect, useRef } from "react";
import { loadClerk } from "~/lib/clerk/lazy-clerk";

/**
 * The URL decides the organization. When it is not the session's active one,
 * make it active in Clerk, so Clerk's components and the next session token
 * agree with the page (the token then authorizes its pages without asking
 * Clerk). That is work for clerk-js: it is loaded for it.
 */
export function useActiveOrganization(orgId: string) {
  const { orgId: activeOrgId } = useAuth();
  // Unlike useAuth (known from the server render), Clerk is loaded only once clerk-js is; its
  // context changes then, and this renders again. (Not useOrganizationList: it sets up three
  // paginated lists on every render, the server's included, for a page that reads none of them.)
  const clerk = useClerk();
  const isLoaded = clerk.loaded;
  const requested = useRef<string | null>(null);
  useEffect(() => {
    if (activeOrgId !== orgId) loadClerk();
  }, [activeOrgId, orgId]);
  useEffect(() => {
    if (!isLoaded || activeOrgId === orgId || requested.current === orgId) return;
    requested.current = orgId;
    void clerk.setActive({ organization: orgId });
  }, [isLoaded, activeOrgId, orgId, clerk]);
}
