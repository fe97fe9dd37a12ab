// /transitive-state/sign-out (transitive-state): the log of useAuth's userId on each path, from the page
// with the sign-out button to the one it goes to (/transitive-state/sign-out/sign-in). The layout stays
// mounted across the sign-out, so its log spans it.
import { useAuth } from "@clerk/react-router";
import { Outlet, useLocation } from "react-router";
import { EmissionLog } from "../components/emission-log";

function UserLog() {
  const { userId } = useAuth();
  const { pathname } = useLocation();
  return <EmissionLog entry={`${pathname} - ${String(userId)}`} />;
}

export default function SignOutLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <div style={{ marginBottom: "20px" }}>
        <h2>Emission log</h2>
        <UserLog />
      </div>
      <Outlet />
    </div>
  );
}
