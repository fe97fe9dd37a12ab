import type { ClerkScreen } from "~/lib/route-handle";

/** The chunks clerk-js 5 loads to draw any of its components, before the component's own. */
const SHARED = ["framework", "vendors", "ui-common"] as const;
const SCREENS: readonly ClerkScreen[] = ["signin", "signup", "userprofile", "organizationprofile"];

/** Every chunk name a screen may need (checked against the installed clerk-js: clerk-js-files.server.ts). */
export const CLERK_JS_CHUNKS: readonly string[] = [...SHARED, ...SCREENS];

/**
 * The addresses of the chunks clerk-js will load to draw `screen`, beside clerk-js itself at
 * `clerkJsUrl` (clerk-js loads its chunks from its own folder), each named `<chunk><suffix>`.
 */
export function clerkScreenChunkUrls(clerkJsUrl: string, suffix: string, screen: ClerkScreen): string[] {
  const folder = clerkJsUrl.slice(0, clerkJsUrl.lastIndexOf("/") + 1);
  return [...SHARED, screen].map((chunk) => `${folder}${chunk}${suffix}`);
}
