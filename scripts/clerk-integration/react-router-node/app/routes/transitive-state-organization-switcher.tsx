// /transitive-state/organization-switcher/:orgId (transitive-state): an <OrganizationSwitcher/> that goes
// to the chosen organization's page, and the log of useAuth's orgId on each path. The layout stays
// mounted from one organization's page to the next, so its log spans the switch.
import { OrganizationSwitcher, useAuth } from "@clerk/react-router";
import { Outlet, useLocation } from "react-router";
import { EmissionLog } from "../components/emission-log";

function OrganizationLog() {
  const { orgId } = useAuth();
  const { pathname } = useLocation();
  return <EmissionLog entry={`${pathname} - ${orgId}`} />;
}

export default function OrganizationSwitcherLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <div style={{ marginBottom: "20px" }}>
        <OrganizationSwitcher
          fallback={<div>Loading organization switcher</div>}
          afterSelectOrganizationUrl="/transitive-state/organization-switcher/:id"
        />
      </div>
      <div style={{ marginBottom: "20px" }}>
        <h2>Emission log</h2>
        <OrganizationLog />
      </div>
      <Outlet />
    </div>
  );
}
