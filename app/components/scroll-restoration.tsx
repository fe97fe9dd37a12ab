import { ScrollRestoration as RemixScrollRestoration } from "@remix-run/react";
import { useState } from "react";
import { ScrollRestoration as RouterScrollRestoration } from "react-router-dom";

/**
 * Remix's scroll restoration, except on a document that opens with one of Clerk's screens, where it
 * runs without Remix's inline script.
 *
 * That script restores a reloaded page's scroll before hydration, and to do so reads sessionStorage. A
 * renderer's first read of sessionStorage is a synchronous call to the browser process: 3 to 84 ms in
 * a quiet Chromium here, 129 ms in Lighthouse's phone run, every millisecond of it holding up the parser
 * at the end of the body (docs/performance.md, "The scroll script"). A Clerk screen's server-rendered
 * page is a frame shorter than a phone's screen (the card comes with clerk-js), so before hydration it
 * has no scroll to restore. After hydration both restore alike: the same react-router hook, under
 * Remix's storage key, so positions saved on either kind of page are found on the other.
 *
 * Chosen once, by the page the document was served for, so hydration renders what the server did.
 */
export function ScrollRestoration({ clerkScreen, nonce }: { clerkScreen: boolean; nonce: string | undefined }) {
  const [withoutScript] = useState(clerkScreen);
  return withoutScript ? <RouterScrollRestoration storageKey="positions" /> : <RemixScrollRestoration nonce={nonce} />;
}
