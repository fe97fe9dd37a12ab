// Clerk's template's /sign-up, with the unsafe metadata Clerk's next-app-router template's sign-up gives
// (`unsafeMetadata={{ position: 'goalie' }}`), which the unsafeMetadata spec reads back from the user made.
import { SignUp } from "@clerk/react-router";

export default function SignUpPage() {
  return (
    <div>
      <h1>Sign Up route</h1>
      <SignUp routing="path" path="/sign-up" signInUrl="/sign-in" unsafeMetadata={{ position: "goalie" }} />
    </div>
  );
}
