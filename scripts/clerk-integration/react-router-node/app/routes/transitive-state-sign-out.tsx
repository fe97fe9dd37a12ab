// /transitive-state/sign-out (transitive-state): the log of useAuth's userId on each path, from the page
// with the sign-out button to the one it goes to (/transitive-state/sign-out/sign-in).
import { Outlet } from "react-router";
import { AuthEmissionLog } from "../components/emission-log";

export default function SignOutLayout() {
  return (
    <div style={{ margin: "40px" }}>
      <AuthEmissionLog of="userId" />
      <Outlet />
    </div>
  );
}
