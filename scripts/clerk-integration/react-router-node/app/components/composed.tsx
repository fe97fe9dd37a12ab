// What the /composed/* pages share (composed-components): Core 3's composed profile exports of
// `@clerk/ui/experimental` (@clerk/ui 1.34: UserProfileProvider, OrganizationProfileProvider and their
// panels and sections), and an organization made active for the organization pages.
//
// `@clerk/ui/experimental` is loaded in the browser only: its modules read `navigator` when they are
// evaluated, which Node 20 (the server render) does not have. Its providers render nothing until
// clerk-js has loaded anyway, so the server and the first browser render both render nothing.
import { useClerk, useOrganization, useOrganizationList } from "@clerk/react-router";
import { useEffect, useState } from "react";

export type ComposedUi = typeof import("@clerk/ui/experimental");

export function useComposedUi(): ComposedUi | null {
  const [ui, setUi] = useState<ComposedUi | null>(null);
  useEffect(() => {
    let mounted = true;
    void import("@clerk/ui/experimental").then((module) => {
      if (mounted) setUi(module);
    });
    return () => {
      mounted = false;
    };
  }, []);
  return ui;
}

/**
 * The composed OrganizationProfileProvider renders nothing without an active organization: a person
 * signed in with none active gets their first membership's organization made active.
 */
export function ActivateFirstOrganization() {
  const clerk = useClerk();
  const { organization } = useOrganization();
  const { isLoaded, userMemberships } = useOrganizationList({ userMemberships: true });
  const firstId = userMemberships?.data?.[0]?.organization.id;

  useEffect(() => {
    if (!isLoaded || organization || !firstId) return;
    void clerk.setActive({ organization: firstId });
  }, [clerk, isLoaded, organization, firstId]);

  return null;
}
