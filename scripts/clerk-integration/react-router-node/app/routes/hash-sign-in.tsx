// <SignIn/> with hash routing, as Clerk's next-app-router template's /hash/sign-in (navigation).
import { SignIn } from "@clerk/react-router";

export default function HashSignInPage() {
  return (
    <div>
      <SignIn routing="hash" />
    </div>
  );
}
