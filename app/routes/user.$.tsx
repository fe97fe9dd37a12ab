import { UserProfile } from "@clerk/clerk-react";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ClerkFrame } from "~/components/clerk-frame";
import { clerkScreenHandle } from "~/lib/route-handle";
import { requireUserId } from "~/lib/clerk/auth.server";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";
import { NOT_INDEXED } from "~/lib/http/meta";

/** Clerk's screen is the page (app/lib/route-handle.ts). */
export const handle = clerkScreenHandle("userprofile");

export const meta: MetaFunction = () => [{ title: "Your profile — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  await requireUserId(args);
  return null;
}

export default function UserProfilePage() {
  const appearance = useClerkAppearance();
  return (
    <ClerkFrame label="Your profile" loading="Loading your profile…" heading="Your profile">
      <UserProfile path="/user" routing="path" appearance={appearance} />
    </ClerkFrame>
  );
}
