import { useClerk } from "@clerk/clerk-react";
import { createContext, useContext, useMemo, type ReactNode } from "react";

const SignOutThroughClerk = createContext<(() => void) | undefined>(undefined);

/**
 * Sign-out through Clerk in the browser, once clerk-js is loaded on this page (if ever); until
 * then, and on the error pages (outside Clerk's provider), `undefined`: a form ends the session
 * on the server. (`useAuth().isLoaded` is true from the server's state alone; `clerk.loaded` is
 * clerk-js itself.)
 */
export function useClerkSignOut(): (() => void) | undefined {
  return useContext(SignOutThroughClerk);
}

/**
 * Gives `useClerkSignOut` its value. Clerk's context changes when clerk-js arrives, and every
 * component that reads it renders again then: read at the root, that was the whole page, in the
 * middle of Clerk drawing its screen. Here only this provider reads it; its children are the
 * elements its parent made, so React passes over them, and only the controls that sign out
 * render again.
 */
export function ClerkSignOutProvider({ children }: { children: ReactNode }) {
  const clerk = useClerk();
  const loaded = clerk.loaded;
  const signOut = useMemo(() => (loaded ? () => void clerk.signOut({ redirectUrl: "/" }) : undefined), [clerk, loaded]);
  return <SignOutThroughClerk.Provider value={signOut}>{children}</SignOutThroughClerk.Provider>;
}
