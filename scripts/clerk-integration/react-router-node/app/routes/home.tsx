// The home page with the client's and session's ids, as Clerk's generic apps show them (sign-out-smoke reads them).
import { Show, UserButton, useClerk, useSession } from "@clerk/react-router";

function ClientId() {
  const clerk = useClerk();
  useSession(); // re-render when the session changes
  return (
    <>
      {clerk?.client?.id && <p data-clerk-id>{clerk.client.id}</p>}
      {clerk?.client?.lastActiveSessionId && <p data-clerk-session>{clerk.client.lastActiveSessionId}</p>}
    </>
  );
}

export default function Home() {
  return (
    <div>
      <UserButton />
      <Show when="signed-in">SignedIn</Show>
      <Show when="signed-out">SignedOut</Show>
      <ClientId />
    </div>
  );
}
