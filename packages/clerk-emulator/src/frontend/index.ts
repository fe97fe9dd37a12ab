import express, { type Router } from "express";
import { wrongProxySecret } from "../http/proxy";
import { ApiError } from "../domain/errors";
import { createRegistrar, notImplemented, sendJson } from "../http/routing";
import { rawUploadBody } from "../http/uploads";
import { registerClientRoutes, registerSessionRoutes } from "./client";
import { createFrontendContext, type FrontendApiOptions } from "./context";
import { registerEmailLinkRoutes } from "./email-links";
import { registerInfrastructureRoutes } from "./infrastructure";
import { registerEmailRoutes } from "./me-emails";
import { registerMeRoutes } from "./me";
import { registerMultiDomainRoutes } from "./multi-domain";
import { registerMeMfaRoutes } from "./me-mfa";
import { registerSessionVerificationRoutes } from "./session-verification";
import { registerPhoneRoutes } from "./me-phones";
import { registerOrganizationDomainRoutes } from "./organization-domains";
import { registerMemberRoutes } from "./organization-members";
import { registerOrganizationRoleRoutes } from "./organization-roles";
import { registerPasskeyRoutes } from "./passkeys";
import { registerOrganizationRoutes } from "./organizations";
import { registerSignInRoutes } from "./sign-ins";
import { registerSignUpRoutes } from "./sign-ups";
import { registerWellKnownRoutes } from "./well-known";

export type { FrontendApiOptions } from "./context";
export { TEST_EMAIL_CODE } from "../domain/verification-codes";

/** Clerk's Frontend API: what clerk-js calls from the browser, one module per resource. */
export function createFrontendApi(options: FrontendApiOptions): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: "64kb" }));
  router.use(express.json({ limit: "64kb" }));
  router.use(rawUploadBody);
  // A proxy that names another instance's secret key is not this instance's proxy
  // (the proxy check says so in its own words: frontend/infrastructure.ts).
  router.use((req, res, next) => {
    if (!wrongProxySecret(req, options.secretKey) || req.path === "/v1/proxy-health") return next();
    sendJson(res, 401, new ApiError(401, "authentication_invalid", "Clerk-Secret-Key does not match").toJSON());
  });
  const route = createRegistrar(router, "fapi", options.faults);
  const fapi = createFrontendContext(options);

  registerClientRoutes(route, fapi);
  registerSessionRoutes(route, fapi);
  registerSignInRoutes(route, fapi);
  const signUps = registerSignUpRoutes(route, fapi);
  registerEmailLinkRoutes(route, fapi, signUps.completeSignUpIfReady);
  registerMeRoutes(route, fapi);
  registerMeMfaRoutes(route, fapi);
  registerSessionVerificationRoutes(route, fapi);
  registerEmailRoutes(route, fapi);
  registerPasskeyRoutes(route, fapi);
  registerPhoneRoutes(route, fapi);
  registerOrganizationRoutes(route, fapi);
  registerMemberRoutes(route, fapi);
  registerOrganizationRoleRoutes(route, fapi);
  registerWellKnownRoutes(route, fapi);
  registerInfrastructureRoutes(route, fapi);
  registerMultiDomainRoutes(route, fapi);
  registerOrganizationDomainRoutes(route, fapi);

  router.use(notImplemented);
  return router;
}
