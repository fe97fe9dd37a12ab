/** What a route tells the document about its page, as its `handle` (Remix's `useMatches`). */
export type RouteHandle = {
  /**
   * The page opens with one of Clerk's screens (sign-in, sign-up, the profile, organization
   * settings): the document lets clerk-js's download (app/components/clerk-js-early.tsx) go before
   * the fonts' (app/root.tsx; app/lib/clerk-first.ts says what else waits for the screen).
   */
  clerkScreen?: true;
};

export const CLERK_SCREEN: RouteHandle = { clerkScreen: true };

/** Whether any route of the page says it opens with one of Clerk's screens. */
export const opensWithClerkScreen = (matches: readonly { handle?: unknown }[]) =>
  matches.some((match) => (match.handle as RouteHandle | undefined)?.clerkScreen === true);
