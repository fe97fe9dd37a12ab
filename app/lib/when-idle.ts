import { clerkScreenFirst } from "./clerk-first";

/**
 * Runs `task` when the browser is idle (or soon, where it cannot say); returns a cancel function.
 * On a page that opened with one of Clerk's screens, idle begins once Clerk has drawn it
 * (app/lib/clerk-first.ts): nothing put off until idle competes with the card.
 */
export function whenIdle(task: () => void, timeout = 2_000): () => void {
  let cancel: (() => void) | null = null;
  let cancelled = false;
  void clerkScreenFirst.then(() => {
    if (cancelled) return;
    if ("requestIdleCallback" in window) {
      const handle = window.requestIdleCallback(task, { timeout });
      cancel = () => window.cancelIdleCallback(handle);
    } else {
      const handle = setTimeout(task, 1);
      cancel = () => clearTimeout(handle);
    }
  });
  return () => {
    cancelled = true;
    cancel?.();
  };
}
