import type { RequestHandler } from "express";
import { beforeHead } from "./before-head";

/**
 * Remix's answers depend on the session (the root loader reads it for every
 * document and `.data` request), so no shared cache may keep one: a CDN or a
 * company proxy that caches by URL would hand one person's organization page
 * to the next. Each gets `Cache-Control: private, no-store` unless its route
 * said otherwise (the switcher's list: `private, max-age=5`), and a route's
 * own value is made private unless it says `public` on purpose. `Vary:
 * Cookie` tells caches that the cookie changes the answer.
 */
export function personalAnswers(): RequestHandler {
  return (_req, res, next) => {
    beforeHead(res, (head) => {
      const given = head.getHeader("Cache-Control");
      const value = given === undefined ? "" : String(given);
      if (!value) head.setHeader("Cache-Control", "private, no-store");
      else if (!/\b(private|public)\b/i.test(value)) head.setHeader("Cache-Control", `private, ${value}`);
      const vary = String(head.getHeader("Vary") ?? "");
      if (!/(^|,)\s*(cookie|\*)\s*(,|$)/i.test(vary)) head.setHeader("Vary", vary ? `${vary}, Cookie` : "Cookie");
    });
    next();
  };
}
