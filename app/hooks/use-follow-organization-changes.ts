import { useOrganization } from "@clerk/remix";
import { useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { ORGANIZATIONS_CHANGED, orgPath, type OrgSummary } from "~/lib/orgs/organizations";

/**
 * Clerk's OrganizationProfile changes the organization straight from the
 * browser. When what clerk-js now holds differs from what the page loaded,
 * tell the server to forget its copies, have the switcher read its list
 * again, and then follow: to the new address after a slug change, else
 * reload the page's data (the header's name and logo). Once per change, so
 * two sources that word an image differently cannot loop.
 */
export function useFollowOrganizationChanges(org: OrgSummary) {
  const { organization } = useOrganization();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const revalidator = useRevalidator();
  const followed = useRef<string | null>(null);

  const now =
    organization?.id === org.id
      ? {
          name: organization.name,
          slug: organization.slug || null,
          imageUrl: organization.hasImage ? organization.imageUrl : null,
        }
      : null;
  const changed = now !== null && (now.name !== org.name || now.slug !== org.slug || now.imageUrl !== org.imageUrl);
  const key = now ? JSON.stringify(now) : null;

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
