import { UserProfile } from "@clerk/react-router";

export default function UserPage() {
  return <UserProfile path="/user" routing="path" fallback={<>Loading user profile</>} />;
}
