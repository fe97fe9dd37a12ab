// /transitive-state/user-button (transitive-state): a <UserButton/> whose account switch goes to
// /transitive-state/user-button/switched, and the log of useAuth's userId on each path. The layout stays
// mounted across the switch, so its log spans it.
import { UserButton, useAuth } from "@clerk/react-router";
import { Outlet, useLocation } from "react-router";
import { EmissionLog } from "../components/emission-log";

function UserLog() {
  const { userId } = useAuth();
  const { pathname } = useLocation();
  return <EmissionLog entry={`${pathname} - ${userId}`} />;
}

export default function UserButtonLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <div style={{ marginBottom: "20px" }}>
        <UserButton
          fallback={<div>Loading user button</div>}
          afterSwitchSessionUrl="/transitive-state/user-button/switched"
        />
      </div>
      <div style={{ marginBottom: "20px" }}>
        <h2>Emission log</h2>
        <UserLog />
      </div>
      <Outlet />
    </div>
  );
}
