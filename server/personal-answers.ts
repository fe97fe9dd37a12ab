import type { RequestHandler } from "express";
import { carriesSessionToken } from "../app/lib/clerk/session-cookies.server";
import { beforeHead } from "./before-head";

/**
 * Remix's answers depend on the session (the root loader reads it for every
 * document and `.data` request), so no shared cache may keep one: a CDN or a
 * company proxy that caches by URL would hand one person's organization page
 * to the next. Each gets `Cache-Control: private` unless its route said
 * otherwise (the switcher's list: `private, max-age=5`), and a route's own
 * value is made private unless it says `public` on purpose. `Vary: Cookie`
 * tells caches that the cookie changes the answer.
 *
 * `private` is what keeps shared caches out (RFC 9111, 5.2.2.7), and it stays
 * on every answer. Beside it:
 * - an HTML page for someone signed out (no `__session` cookie: sign-in,
 *   sign-up, the landing page) has `no-cache`: the browser's own cache must
 *   ask the server again before any reuse (no validator is sent, so it is a
 *   full request), and, unlike `no-store`, it lets Chromium keep the page in
 *   the back/forward cache, so Back shows it at once (Lighthouse's `bf-cache`
 *   audit; https://web.dev/articles/bfcache, "Minimize use of Cache-Control:
 *   no-store"). Restored after the browser signed in elsewhere, it reloads
 *   (app/lib/restored-page.ts);
 * - a signed-in page keeps `no-store`: Chromium then keeps it in the
 *   back/forward cache only until a cookie of the site changes (a sign-out, a
 *   new session token), so Back after a sign-out never shows the person's
 *   page, with JavaScript off too (tests/e2e/back-forward-cache.spec.ts:
 *   Chromium 156 does not drop a `no-cache` page on the sign-out's
 *   `Clear-Site-Data: "cache"`);
 * - data requests, redirects, errors and the rest keep `no-store`.
 */
export function personalAnswers(): RequestHandler {
  return (req, res, next) => {
    beforeHead(res, (head) => {
      const given = head.getHeader("Cache-Control");
      const value = given === undefined ? "" : String(given);
      const keepable = isDocument(head) && !carriesSessionToken(req.headers.cookie);
      if (!value) head.setHeader("Cache-Control", keepable ? "private, no-cache" : "private, no-store");
      else if (!/\b(private|public)\b/i.test(value)) head.setHeader("Cache-Control", `private, ${value}`);
      const vary = String(head.getHeader("Vary") ?? "");
      if (!/(^|,)\s*(cookie|\*)\s*(,|$)/i.test(vary)) head.setHeader("Vary", vary ? `${vary}, Cookie` : "Cookie");
    });
    next();
  };
}

/** An HTML page (a document navigation's answer), not data, a redirect or a file. */
function isDocument(head: { statusCode: number; getHeader(name: string): unknown }): boolean {
  return head.statusCode === 200 && /^text\/html\b/i.test(String(head.getHeader("Content-Type") ?? ""));
}
