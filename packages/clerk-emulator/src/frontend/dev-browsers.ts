import type { Request } from "express";
import { createDevBrowser, DEV_BROWSER_PARAM, devBrowserToken, findDevBrowser } from "../domain/dev-browsers";
import { str } from "../http/routing";
import type { FrontendContext } from "./context";

/**
 * `POST /v1/dev_browser` on a development instance: a new dev browser, as
 * Clerk answers it (its record: `id`, what clerk-js keeps and sends back as
 * `__clerk_db_jwt`, and `token`, the same browser as a JWT the instance signs).
 * No client yet: the browser gets one with its first sign-in or `POST /v1/client`.
 */
export function newDevBrowser(fapi: FrontendContext) {
  const devBrowser = createDevBrowser(fapi.store);
  return {
    id: devBrowser.id,
    instance_id: fapi.tokens.key.kid,
    token: devBrowserToken(fapi.tokens.key, devBrowser),
    client_id: null,
    created_at: devBrowser.createdAt,
    updated_at: devBrowser.updatedAt,
  };
}

/**
 * The dev browser a handshake is for: the one @clerk/backend passes on
 * (`__clerk_db_jwt`, from the page's URL or the app's cookie), else a new one
 * (a browser's first visit, or a dev browser this instance does not know: it
 * starts over signed out, as clerk-js does on `dev_browser_unauthenticated`).
 */
export function handshakeDevBrowser(fapi: FrontendContext, req: Request) {
  return findDevBrowser(fapi.store, fapi.tokens.key, str(req.query[DEV_BROWSER_PARAM])) ?? createDevBrowser(fapi.store);
}
