import type { Request } from "express";
import { proxyUrlOf, publicOrigin, redirectAllowed } from "../http/proxy";
import { ApiError } from "../domain/errors";
import type { FrontendContext } from "./context";

/**
 * A `redirect_url` the Frontend API may send the browser to: an absolute
 * http(s) URL on one of the instance's allowed origins (the handshake's rule,
 * http/proxy.ts `redirectAllowed`), never anywhere else.
 */
export function allowedRedirect(
  req: Request,
  fapi: FrontendContext,
  value: string | null,
  param = "redirect_url",
): URL {
  let target: URL;
  try {
    target = new URL(value ?? "");
  } catch {
    throw new ApiError(400, "form_param_format_invalid", `${param} must be an absolute URL`, param);
  }
  if (!redirectAllowed(req, target, fapi.allowedOrigins, fapi.secretKey))
    throw new ApiError(
      400,
      "form_param_value_invalid",
      `${param} must be on one of the instance's allowed origins`,
      param,
    );
  return target;
}

/** The app's home page: the instance's `home_url` ("/") on the origin the browser reached the Frontend API from. */
export function homeUrl(req: Request, fapi: FrontendContext): string {
  const origin = proxyUrlOf(req, fapi.secretKey)?.origin ?? publicOrigin(req) ?? "";
  return `${origin}/`;
}
