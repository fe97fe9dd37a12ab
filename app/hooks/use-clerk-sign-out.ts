import { createContext, useContext } from "react";

/** What `ClerkSignOutProvider` (app/components/clerk-sign-out-provider.tsx) gives the controls that sign out. */
export const SignOutThroughClerk = createContext<(() => void) | undefined>(undefined);

/**
 * Sign-out through Clerk in the browser, once clerk-js is loaded on this page (if ever); until
 * then, and on the error pages (outside Clerk's provider), `undefined`: a form ends the session
 * on the server. (`useAuth().isLoaded` is true from the server's state alone; `clerk.loaded` is
 * clerk-js itself.)
 */
export function useClerkSignOut(): (() => void) | undefined {
  return useContext(SignOutThroughClerk);
}
