import { Heading } from "~/components/ui";
import { NavLink } from "@remix-run/react";
import { orgPath, type OrgSummary } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { RoleBadge } from "./role-badge";

/**
 * The organization's name, the viewer's role in it, and its sections. Kept when a section fails.
 * Laid out by app.css (`.org-header`), not Radix's `Flex`: it is on every organization page.
 */
export function OrgHeader({ org }: { org: OrgSummary }) {
  const base = orgPath(org);
  return (
    <div className="org-header">
      <div className="org-header-who">
        <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" size="large" />
        <div className="org-header-name">
          <Heading as="h1" size="7" data-testid="org-name">
            {org.name}
          </Heading>
          <div>
            <RoleBadge role={org.role} testId="org-role" />
          </div>
        </div>
      </div>
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
    </div>
  );
}
