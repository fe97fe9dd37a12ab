import { useClerk } from "@clerk/clerk-react";
import { useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import { ORGANIZATIONS_CHANGED, orgPath, type OrgSummary } from "~/lib/orgs/organizations";

/** What clerk-js holds of the page's organization. */
type Held = { name: string; slug: string | null; imageUrl: string | null };

/**
 * Clerk's OrganizationProfile changes the organization straight from the
 * browser. When what clerk-js now holds differs from what the page loaded,
 * tell the server to forget its copies, have the switcher read its list
 * again, and then follow: to the new address after a slug change, else
 * reload the page's data (the header's name and logo). Once per change, so
 * two sources that word an image differently cannot loop.
 */
export function useFollowOrganizationChanges(org: OrgSummary) {
  const clerk = useClerk();
  // Read from clerk-js's own listener, not Clerk's useOrganization hook: that hook sets up paginated
  // lists this page never reads, and with them swr on every page's first load (issue 56).
  const key = useSyncExternalStore(
    useCallback((changed: () => void) => clerk.addListener(changed), [clerk]),
    () => {
      const organization = clerk.organization;
      if (organization?.id !== org.id) return null;
      const now: Held = {
        name: organization.name,
        slug: organization.slug || null,
        imageUrl: organization.hasImage ? organization.imageUrl : null,
      };
      return JSON.stringify(now);
    },
    () => null,
  );
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const revalidator = useRevalidator();
  const followed = useRef<string | null>(null);

  const now = key === null ? null : (JSON.parse(key) as Held);
  const changed = now !== null && (now.name !== org.name || now.slug !== org.slug || now.imageUrl !== org.imageUrl);

  useEffect(() => {
    if (!changed || !now || followed.current === key) return;
    followed.current = key;
    const body = new URLSearchParams({ organizationId: org.id });
    // Without the server's answer its copies still expire within seconds.
    void fetch("/resources/organizations", { method: "POST", body })
      .catch(() => undefined)
      .then(() => {
        window.dispatchEvent(new Event(ORGANIZATIONS_CHANGED));
        if (now.slug === org.slug) return revalidator.revalidate();
        const rest = pathname.slice(orgPath(org).length);
        navigate(`${orgPath({ id: org.id, slug: now.slug })}${rest}${search}`, { replace: true });
      });
    // `now` is fully described by `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [changed, key, org, pathname, search, navigate, revalidator]);
}
