import { useRootData } from "~/hooks/use-root-data";
import { useNonce } from "~/lib/http/nonce";

/**
 * On a page that opens with one of Clerk's screens, clerk-js's download
 * starts while the document is still being read, at high priority, not after
 * hydration (about 0.6 s later on a phone): the screen is the page's largest
 * paint, and it is drawn only once clerk-js has run. A preload only fetches,
 * so clerk-js still runs when Clerk's provider asks for it, from the same URL
 * with the same `crossorigin` (the preload is used, not fetched twice:
 * tests/e2e/lazy-parts.spec.ts). An inline script adds it, so a browser
 * without JavaScript, which could not run clerk-js, does not download it.
 * It stands in Clerk's frame, in the body, not in the head: the link it adds
 * goes at the end of the head, after everything React rendered there, where
 * hydration passes over it; added in the middle of the head, it made React
 * render the whole document again, body included. After a client-side
 * navigation React does not run the script; the frame's effect loads
 * clerk-js at once then.
 */
export function ClerkJsEarly() {
  const nonce = useNonce();
  const url = useRootData()?.clerkState.__internal_clerk_state.__clerkJSUrl;
  if (!url) return null;
  const preload = `var l=document.createElement("link");l.rel="preload";l.as="script";l.crossOrigin="anonymous";l.fetchPriority="high";l.href=${JSON.stringify(url).replace(/</g, "\\u003c")};document.head.appendChild(l)`;
  // The nonce is hidden from the browser's DOM (so "" when hydrating): the one attribute allowed to differ.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: preload }} />;
}
