import { SignUp } from "@clerk/clerk-react";
import type { MetaFunction } from "@remix-run/node";
import { ClerkFrame } from "~/components/clerk-frame";
import { clerkScreenHandle } from "~/lib/route-handle";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";

/** Clerk's screen is the page (app/lib/route-handle.ts). */
export const handle = clerkScreenHandle("signup");

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
