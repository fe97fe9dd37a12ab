import { SignIn } from "@clerk/clerk-react";
import type { MetaFunction } from "@remix-run/node";
import { ClerkFrame } from "~/components/clerk-frame";
import { clerkScreenHandle } from "~/lib/route-handle";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";

/** Clerk's screen is the page (app/lib/route-handle.ts). */
export const handle = clerkScreenHandle("signin");

export const meta: MetaFunction = () => [
  { name: "description", content: "Sign in to Teamwork to reach your organizations." },
  { title: "Sign in — Teamwork" },
];

export default function SignInPage() {
  const appearance = useClerkAppearance();
  return (
    <ClerkFrame label="Signing in" loading="Loading the sign-in form…" heading="Sign in">
      <SignIn path="/sign-in" routing="path" signUpUrl="/sign-up" appearance={appearance} />
    </ClerkFrame>
  );
}
