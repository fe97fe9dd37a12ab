import { SignUp } from "@clerk/clerk-react";
import type { MetaFunction } from "@remix-run/node";
import { ClerkFrame } from "~/components/clerk-frame";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";

export const meta: MetaFunction = () => [
  { name: "description", content: "Create your Teamwork account and bring your team." },
  { title: "Sign up — Teamwork" },
];

export default function SignUpPage() {
  const appearance = useClerkAppearance();
  return (
    <ClerkFrame label="Signing up" loading="Loading the sign-up form…" heading="Sign up">
      <SignUp path="/sign-up" routing="path" signInUrl="/sign-in" appearance={appearance} />
    </ClerkFrame>
  );
}
