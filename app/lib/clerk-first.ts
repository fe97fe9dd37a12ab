import { FONTS_WAIT } from "./web-fonts";

/*
 * On Clerk's screens, Clerk first (issue 70).
 *
 * A page that opens with one of Clerk's screens (sign-in, sign-up, the profile, organization
 * settings: `.clerk-frame` in the server's HTML) is there for that screen, and on a phone the card
 * is drawn only once clerk-js and its chunks have downloaded and run. Until then the page does
 * nothing else it can put off: the navigation bar stays the server's HTML (plain links and
 * forms, which work without JavaScript: `AfterClerkScreen`), and the work each part leaves for
 * when the browser is idle (the menus' code, the progress bar, analytics: `whenIdle`) and
 * after-paint.css wait, and so do the web fonts (app/components/fonts.tsx). Measured in
 * docs/performance.md ("Clerk first").
 *
 * It ends when Clerk's component is in the frame and has been painted, when the frame leaves the
 * page (Clerk navigated on without drawing), when the person reaches for the navigation bar (a
 * pointer over it, a touch, focus), or after `GIVE_UP_MS` (clerk-js failed to load: the rest of
 * the page still comes).
 */

/** Long enough for clerk-js on a slow phone and network; past it, the page stops waiting. */
const GIVE_UP_MS = 15_000;
/** What Clerk's components render at their root, once drawn. */
const CLERK_DRAWN = ".cl-rootBox";

let release: () => void = () => undefined;
let done = typeof document === "undefined" || !document.querySelector(".clerk-frame");

/** Resolves at once on other pages; on a page that opened with Clerk's screen, once it is drawn (see above). */
export const clerkScreenFirst: Promise<void> = done
  ? Promise.resolve()
  : new Promise<void>((resolve) => {
      release = () => {
        if (done) return;
        done = true;
        cleanUp();
        // The web fonts, held back until now on this page (app/lib/web-fonts.ts).
        document.documentElement.removeAttribute(FONTS_WAIT);
        resolve();
      };
    });

const listeners: (() => void)[] = [];
function cleanUp() {
  for (const remove of listeners.splice(0)) remove();
}

if (!done) waitForClerk();
// A page marked for a Clerk screen that shows none (its route's error page, a frame not rendered):
// nothing will be drawn to wait for, so the fonts come once it has painted. (Another page's mark,
// `first-paint`, is its own script's to lift, at the first contentful paint: app/lib/web-fonts.ts.)
else if (typeof document !== "undefined" && document.documentElement.getAttribute(FONTS_WAIT) === "clerk-screen")
  requestAnimationFrame(() => setTimeout(() => document.documentElement.removeAttribute(FONTS_WAIT), 0));

function waitForClerk() {
  const frame = document.querySelector(".clerk-frame")!;
  // Drawn: in the DOM, then past the next frame's paint.
  const drawn = () => requestAnimationFrame(() => setTimeout(release, 0));
  if (frame.querySelector(CLERK_DRAWN)) return drawn();
  // Watched from the body, not the frame: the frame may go without ever drawing (Clerk's sign-in,
  // for someone already signed in, navigates on to the page after it), and the page is the next
  // page's at once then.
  const observer = new MutationObserver(() => {
    if (!frame.isConnected) return release();
    if (!frame.querySelector(CLERK_DRAWN)) return;
    observer.disconnect();
    drawn();
  });
  observer.observe(document.body, { childList: true, subtree: true });
  listeners.push(() => observer.disconnect());
  const timer = setTimeout(release, GIVE_UP_MS);
  listeners.push(() => clearTimeout(timer));
  // Someone reaching for the navigation bar gets it at once.
  const onIntent = (event: Event) => {
    if (event.target instanceof Element && event.target.closest(".nav-bar")) release();
  };
  for (const type of ["pointerover", "pointerdown", "touchstart", "focusin"]) {
    document.addEventListener(type, onIntent, { capture: true, passive: true });
    listeners.push(() => document.removeEventListener(type, onIntent, { capture: true }));
  }
}

/** True once Clerk's screen is drawn, or at once where the page opened with none (and on the server: never held). */
export function clerkScreenDone(): boolean {
  return done;
}

/** For `useSyncExternalStore`: calls back once Clerk's screen is drawn. */
export function subscribeClerkScreen(onChange: () => void): () => void {
  let active = true;
  void clerkScreenFirst.then(() => active && onChange());
  return () => {
    active = false;
  };
}
