// <SignIn/> with the sign-up flow inside it, as Clerk's next-app-router template's /sign-in-or-up page.
import { SignIn } from "@clerk/react-router";

export default function SignInOrUp() {
  return (
    <div>
      <SignIn
        routing="path"
        path="/sign-in-or-up"
        signUpUrl="/sign-up"
        fallback={<>Loading sign in</>}
        unsafeMetadata={{ position: "goalie" }}
        withSignUp
      />
    </div>
  );
}
