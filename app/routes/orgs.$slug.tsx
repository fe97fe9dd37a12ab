import { useAuth, useOrganizationList } from "@clerk/remix";
import { Badge, Flex, Heading } from "@radix-ui/themes";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { EntityAvatar } from "~/components/entity-avatar";
import { orgPath, roleLabel, type OrgSummary } from "~/lib/organizations";
import { requireOrgMembership } from "~/lib/organizations.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.org.name} — Teamwork` : "Organization — Teamwork" },
];

export async function loader(args: LoaderFunctionArgs) {
  const { org } = await requireOrgMembership(args);
  return { org };
}

/**
 * The URL decides the organization. When it is not the session's active one,
 * make it active in Clerk, so Clerk's components and the next session token
 * agree with the page.
 */
function useActiveOrganization(orgId: string) {
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

export function OrgHeader({ org }: { org: OrgSummary }) {
  const base = orgPath(org.slug);
  return (
    <Flex direction="column" gap="4" className="org-header">
      <Flex align="center" gap="3">
        <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" size="large" />
        <Flex direction="column" gap="1">
          <Heading as="h1" size="7" data-testid="org-name">
            {org.name}
          </Heading>
          <div>
            <Badge variant="soft" color={org.role === "org:admin" ? "indigo" : "gray"} data-testid="org-role">
              {roleLabel(org.role)}
            </Badge>
          </div>
        </Flex>
      </Flex>
      <nav aria-label={`${org.name} sections`}>
        <ul className="tab-links">
          <li>
            <NavLink to={base} end className="nav-link">
              Overview
            </NavLink>
          </li>
          <li>
            <NavLink to={`${base}/members`} className="nav-link">
              Members
            </NavLink>
          </li>
          <li>
            <NavLink to={`${base}/settings`} className="nav-link">
              Settings
            </NavLink>
          </li>
        </ul>
      </nav>
    </Flex>
  );
}

export default function OrganizationLayout() {
  const { org } = useLoaderData<typeof loader>();
  useActiveOrganization(org.id);
  return (
    <>
      <OrgHeader org={org} />
      <Outlet />
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
