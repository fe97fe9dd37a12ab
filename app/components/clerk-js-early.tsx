import { useRootData } from "~/hooks/use-root-data";
import { useNonce } from "~/lib/http/nonce";

/**
 * On a page that opens with one of Clerk's screens (its route's handle:
 * app/lib/route-handle.ts), clerk-js's download starts from the document's
 * head, before its stylesheet and fonts, at high priority, not after
 * hydration (about 0.6 s later on a phone): the screen is the page's largest
 * paint, and it is drawn only once clerk-js has run. A preload only fetches,
 * so clerk-js still runs when Clerk's provider asks for it, from the same URL
 * with the same `crossorigin` (the preload is used, not fetched twice:
 * tests/e2e/lazy-parts.spec.ts). An inline script adds it, so a browser
 * without JavaScript, which could not run clerk-js, does not download it.
 * After a client-side navigation React does not run the script; the frame's
 * effect loads clerk-js at once then.
 */
export function ClerkJsEarly() {
  const nonce = useNonce();
  const url = useRootData()?.clerkState.__internal_clerk_state.__clerkJSUrl;
  if (!url) return null;
  const preload = `var l=document.createElement("link");l.rel="preload";l.as="script";l.crossOrigin="anonymous";l.fetchPriority="high";l.href=${JSON.stringify(url).replace(/</g, "\\u003c")};document.head.appendChild(l)`;
  // The nonce is hidden from the browser's DOM (so "" when hydrating): the one attribute allowed to differ.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: preload }} />;
}
