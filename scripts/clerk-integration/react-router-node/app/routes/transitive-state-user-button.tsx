// /transitive-state/user-button (transitive-state): a <UserButton/> whose account switch goes to
// /transitive-state/user-button/switched, and the log of useAuth's userId on each path.
import { UserButton } from "@clerk/react-router";
import { Outlet } from "react-router";
import { AuthEmissionLog } from "../components/emission-log";

export default function UserButtonLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <div style={{ marginBottom: "20px" }}>
        <UserButton
          fallback={<div>Loading user button</div>}
          afterSwitchSessionUrl="/transitive-state/user-button/switched"
        />
      </div>
      <AuthEmissionLog of="userId" />
      <Outlet />
    </div>
  );
}
