import { UserButton, UserProfile } from "@clerk/react-router";

export default function HashUserPage() {
  return (
    <div>
      <UserButton />
      <UserProfile routing="hash" />
    </div>
  );
}
