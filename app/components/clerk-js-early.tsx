import { useMatches } from "@remix-run/react";
import { useRootData } from "~/hooks/use-root-data";
import { clerkScreenChunkUrls } from "~/lib/clerk/clerk-js-chunks";
import { useNonce } from "~/lib/http/nonce";
import { clerkScreenOf } from "~/lib/route-handle";

/**
 * On a page that opens with one of Clerk's screens, clerk-js's download
 * starts while the document is still being read, at high priority, not after
 * hydration (about 0.6 s later on a phone): the screen is the page's largest
 * paint, and it is drawn only once clerk-js has run. So do the downloads of the
 * chunks clerk-js then loads to draw that screen (its framework, vendors and
 * shared UI, and the screen's own: about 230 KB), where the server sends its
 * own clerk-js and knows their names (app/lib/clerk/clerk-js-files.server.ts):
 * on a phone's network they would otherwise start only once clerk-js had
 * arrived, run, and asked Clerk for its environment.
 *
 * A preload only fetches, so clerk-js still runs when Clerk's provider asks
 * for it, from the same URL with the same `crossorigin`, and its chunks when
 * it inserts them (without `crossorigin`, as clerk-js does): each preload is
 * used, not fetched twice (tests/e2e/lazy-parts.spec.ts). An inline script
 * adds them, so a browser without JavaScript, which could not run clerk-js,
 * downloads none of it. It stands in Clerk's frame, in the body, not in the
 * head: the links it adds go at the end of the head, after everything React
 * rendered there, where hydration passes over them; added in the middle of
 * the head, they made React render the whole document again, body included.
 * After a client-side navigation React does not run the script; the frame's
 * effect loads clerk-js at once then.
 */
export function ClerkJsEarly() {
  const nonce = useNonce();
  const root = useRootData();
  const screen = clerkScreenOf(useMatches());
  const url = root?.clerkState.__internal_clerk_state.__clerkJSUrl;
  if (!url) return null;
  const chunks = screen && root.clerkJsChunks ? clerkScreenChunkUrls(url, root.clerkJsChunks, screen) : [];
  const preloads = [
    { href: url, crossOrigin: "anonymous", fetchPriority: "high" },
    // Low: behind clerk-js and the page's own modules, which are needed first.
    ...chunks.map((href) => ({ href, fetchPriority: "low" })),
  ];
  const script = `${JSON.stringify(preloads).replace(/</g, "\\u003c")}.forEach(function(p){var l=document.createElement("link");l.rel="preload";l.as="script";for(var k in p)l[k]=p[k];document.head.appendChild(l)})`;
  // The nonce is hidden from the browser's DOM (so "" when hydrating): the one attribute allowed to differ.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}
