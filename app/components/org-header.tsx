import { Flex, Heading } from "~/components/ui";
import { NavLink } from "@remix-run/react";
import { orgPath, type OrgSummary } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { RoleBadge } from "./role-badge";

/** The organization's name, the viewer's role in it, and its sections. Kept when a section fails. */
export function OrgHeader({ org }: { org: OrgSummary }) {
  const base = orgPath(org);
  return (
    <Flex direction="column" gap="4" className="org-header">
      <Flex align="center" gap="3">
        <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" size="large" />
        <Flex direction="column" gap="1">
          <Heading as="h1" size="7" data-testid="org-name">
            {org.name}
          </Heading>
          <div>
            <RoleBadge role={org.role} testId="org-role" />
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
