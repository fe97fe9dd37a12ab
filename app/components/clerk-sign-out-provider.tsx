import { useClerk } from "@clerk/clerk-react";
import { useMemo, type ReactNode } from "react";
import { SignOutThroughClerk } from "~/hooks/use-clerk-sign-out";

/**
 * Gives `useClerkSignOut` its value. Clerk's context changes when clerk-js arrives, and every
 * component that reads it renders again then: read at the root, that was the whole page, in the
 * middle of Clerk drawing its screen. Here only this provider reads it; its children are the
 * elements its parent made, so React passes over them, and only the controls that sign out
 * render again. (A module of its own, exporting components only, so that `npm run dev`'s React
 * Refresh updates it in place: beside the hook, a hot update remounted the whole page under it.)
 */
export function ClerkSignOutProvider({ children }: { children: ReactNode }) {
  const clerk = useClerk();
  const loaded = clerk.loaded;
  const signOut = useMemo(() => (loaded ? () => void clerk.signOut({ redirectUrl: "/" }) : undefined), [clerk, loaded]);
  return <SignOutThroughClerk.Provider value={signOut}>{children}</SignOutThroughClerk.Provider>;
}
