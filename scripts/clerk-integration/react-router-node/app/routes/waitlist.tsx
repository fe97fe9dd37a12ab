// <Waitlist/> at /waitlist, as Clerk's next-app-router template and the app waitlist-mode builds have it.
import { Waitlist } from "@clerk/react-router";

export default function WaitlistPage() {
  return (
    <div>
      <Waitlist fallback={<>Loading waitlist</>} />
    </div>
  );
}
