import express, { type Router } from "express";
import { wrongProxySecret } from "../proxy";
import { ApiError, createRegistrar, notImplemented, sendJson } from "../routing";
import { rawUploadBody } from "../uploads";
import { registerClientRoutes, registerSessionRoutes } from "./client";
import { createFrontendContext, type FrontendApiOptions } from "./context";
import { registerEmailRoutes } from "./me-emails";
import { registerMeRoutes } from "./me";
import { registerOrganizationDomainRoutes } from "./organization-domains";
import { registerMemberRoutes } from "./organization-members";
import { registerOrganizationRoutes } from "./organizations";
import { registerSignInRoutes } from "./sign-ins";
import { registerSignUpRoutes } from "./sign-ups";

export type { FrontendApiOptions } from "./context";
export { TEST_EMAIL_CODE } from "./sign-ins";

/** Clerk's Frontend API: what clerk-js calls from the browser, one module per resource. */
export function createFrontendApi(options: FrontendApiOptions): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: "64kb" }));
  router.use(express.json({ limit: "64kb" }));
  router.use(rawUploadBody);
  // A proxy that names another instance's secret key is not this instance's proxy.
  router.use((req, res, next) => {
    if (!wrongProxySecret(req, options.secretKey)) return next();
    sendJson(res, 401, new ApiError(401, "authentication_invalid", "Clerk-Secret-Key does not match").toJSON());
  });
  const route = createRegistrar(router, "fapi", options.faults);
  const fapi = createFrontendContext(options);

  registerClientRoutes(route, fapi);
  registerSessionRoutes(route, fapi);
  registerSignInRoutes(route, fapi);
  registerSignUpRoutes(route, fapi);
  registerMeRoutes(route, fapi);
  registerEmailRoutes(route, fapi);
  registerOrganizationRoutes(route, fapi);
  registerMemberRoutes(route, fapi);
  registerOrganizationDomainRoutes(route, fapi);

  router.use(notImplemented);
  return router;
}
