// /transitive-state/sign-out: a <SignOutButton/> ("Sign out") that goes to /transitive-state/sign-out/sign-in.
import { SignOutButton } from "@clerk/react-router";

export default function SignOutPage() {
  return (
    <div>
      <p data-testid="page-name">sign-out</p>
      <SignOutButton redirectUrl="/transitive-state/sign-out/sign-in" />
    </div>
  );
}
