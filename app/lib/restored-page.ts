/*
 * Pages for someone signed out may enter the browser's back/forward cache (their `Cache-Control`
 * is `private, no-cache`, not `no-store`: server/personal-answers.ts; signed-in pages are never
 * kept). A page restored from it shows what it showed when it was left. If the person signed in
 * since (in another tab), it would offer a sign-in they no longer need, or a signed-out landing
 * page: Clerk's `__client_uat` cookie is "when this browser's sign-in last changed" (`0` once
 * signed out), so a restored page whose value differs is loaded afresh instead. This is the check
 * web.dev's guidance on the back/forward cache asks of pages with personal data
 * (https://web.dev/articles/bfcache, "Update stale or sensitive data after bfcache restore").
 */

/** The value of every `__client_uat` cookie (clerk-js 5 also writes suffixed twins), as one string. */
function signInStamp(): string {
  return document.cookie
    .split("; ")
    .filter((pair) => /^__client_uat(_[A-Za-z0-9-]+)?=/.test(pair))
    .sort()
    .join("; ");
}

/** Reloads a page the back/forward cache restores if the browser's sign-in changed while it was away. */
export function reloadRestoredPageOnSignInChange(): void {
  const atLoad = signInStamp();
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && signInStamp() !== atLoad) window.location.reload();
  });
}
