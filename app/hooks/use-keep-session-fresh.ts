import { useEffect } from "react";
import { loadClerk } from "~/lib/clerk/lazy-clerk";

/** How long before the session token expires clerk-js is loaded to refresh it (its load takes a few seconds on a slow phone). */
const LEAD_MS = 20_000;

/**
 * A signed-in page loads clerk-js before its session token expires: clerk-js
 * then keeps the token fresh, so the page's next data requests are still
 * signed in. `expiresInMs` is the token's lifetime left when the server
 * rendered the page; null when nobody is signed in. A timer is late in a
 * background tab, so coming back to the tab checks again.
 */
export function useKeepSessionFresh(expiresInMs: number | null) {
  useEffect(() => {
    if (expiresInMs === null) return;
    const due = Date.now() + expiresInMs - LEAD_MS;
    const timer = setTimeout(loadClerk, Math.max(0, due - Date.now()));
    const onVisible = () => {
      if (document.visibilityState === "visible" && Date.now() >= due) loadClerk();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [expiresInMs]);
}
