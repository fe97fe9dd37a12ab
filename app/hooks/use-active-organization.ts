import { useAuth, useOrganizationList } from "@clerk/remix";
import { useEffect, useRef } from "react";

/**
 * The URL decides the organization. When it is not the session's active one,
 * make it active in Clerk, so Clerk's components and the next session token
 * agree with the page.
 */
export function useActiveOrganization(orgId: string) {
  const { orgId: activeOrgId } = useAuth();
  // Unlike useAuth (known from the server render), this is loaded only once clerk-js is.
  const { isLoaded, setActive } = useOrganizationList();
  const requested = useRef<string | null>(null);
  useEffect(() => {
    if (!isLoaded || activeOrgId === orgId || requested.current === orgId) return;
    requested.current = orgId;
    void setActive({ organization: orgId });
  }, [isLoaded, activeOrgId, orgId, setActive]);
}
