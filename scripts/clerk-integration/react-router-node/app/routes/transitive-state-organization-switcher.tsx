// /transitive-state/organization-switcher/:orgId (transitive-state): an <OrganizationSwitcher/> that goes
// to the chosen organization's page, and the log of useAuth's orgId on each path.
import { OrganizationSwitcher } from "@clerk/react-router";
import { Outlet } from "react-router";
import { AuthEmissionLog } from "../components/emission-log";

export default function OrganizationSwitcherLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <div style={{ marginBottom: "20px" }}>
        <OrganizationSwitcher
          fallback={<div>Loading organization switcher</div>}
          afterSelectOrganizationUrl="/transitive-state/organization-switcher/:id"
        />
      </div>
      <AuthEmissionLog of="orgId" />
      <Outlet />
    </div>
  );
}
