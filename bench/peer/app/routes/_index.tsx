import { SignedIn, SignedOut, SignInButton, UserButton } from "@clerk/remix";

export default function Index() {
  return (
    <header>
      <SignedOut>
        <SignInButton />
      </SignedOut>
      <SignedIn>
        <UserButton />
      </SignedIn>
    </header>
  );
}
