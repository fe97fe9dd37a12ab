import { useSyncExternalStore } from "react";
import { clerkScreenDone, subscribeClerkScreen } from "~/lib/clerk-first";

/**
 * False while a page that opened with one of Clerk's screens waits for Clerk to draw it
 * (app/lib/clerk-first.ts); true otherwise. Like `useHydrated`, the server's answer (and
 * hydration's) is false.
 */
export function useClerkScreenDone(): boolean {
  return useSyncExternalStore(subscribeClerkScreen, clerkScreenDone, () => false);
}
