import type { Request, Response } from "express";
import { jwtTemplateNamed, mintTemplateToken } from "../domain/jwt-templates";
import { ApiError } from "../domain/errors";
import type { FrontendContext } from "./context";

/**
 * `getToken({ template })` in clerk-js: a token from the named JWT template
 * for one of the browser's active sessions, in its active organization
 * (clerk-js sends no organization for a template), or Clerk's 404 for a name
 * the instance has no template for.
 */
export function templateTokenForRequest(fapi: FrontendContext, req: Request, res: Response) {
  const session = fapi.sessionOfClient(fapi.currentClient(req), req.params.id);
  if (session.status !== "active" || session.expireAt <= Date.now()) {
    throw new ApiError(401, "signed_out", "You are signed out");
  }
  const template = jwtTemplateNamed(fapi.store, String(req.params.template));
  res.setHeader("Cache-Control", "no-store");
  const jwt = mintTemplateToken(fapi.store, fapi.tokens, {
    template,
    session,
    azp: req.get("origin") ?? undefined,
  });
  return { object: "token", jwt };
}
