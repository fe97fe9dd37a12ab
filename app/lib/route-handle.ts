/**
 * Clerk's components a page can open with, by the name clerk-js gives the chunk that draws each
 * (`signin_clerk.browser_….js`: app/lib/clerk/clerk-js-chunks.ts).
 */
export type ClerkScreen = "signin" | "signup" | "userprofile" | "organizationprofile";

/** What a route tells the document about its page, as its `handle` (Remix's `useMatches`). */
export type RouteHandle = {
  /**
   * The page opens with this one of Clerk's screens: the document fetches clerk-js and the chunks
   * that draw the screen while it is still being read (app/components/clerk-js-early.tsx), and
   * leaves the fonts until the screen is drawn (app/lib/clerk-first.ts says what else waits).
   */
  clerkScreen?: ClerkScreen;
};

/** The handle of a route whose page is one of Clerk's screens. */
export const clerkScreenHandle = (screen: ClerkScreen): RouteHandle => ({ clerkScreen: screen });

/** The Clerk screen the page opens with, if a route of it says so. */
export function clerkScreenOf(matches: readonly { handle?: unknown }[]): ClerkScreen | null {
  for (const match of matches) {
    const screen = (match.handle as RouteHandle | undefined)?.clerkScreen;
    if (screen) return screen;
  }
  return null;
}
