// <UserButton/> alone, as Clerk's next-app-router template has it at /user-button (session-tasks-multi-session
// switches accounts there).
import { UserButton } from "@clerk/react-router";

export default function UserButtonPage() {
  return (
    <div>
      <UserButton fallback={<>Loading user button</>} />
    </div>
  );
}
