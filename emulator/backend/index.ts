import express, { type Request, type Router } from "express";
import type { Faults } from "../faults";
import { ApiError, createRegistrar, notImplemented } from "../routing";
import type { Store } from "../store";
import { jwks, type SigningKey } from "../tokens";
import { createBackendContext } from "./context";
import { registerDomainRoutes } from "./domains";
import { registerInstanceRoutes } from "./instance";
import { registerInterstitialRoute } from "./interstitial";
import { registerInvitationRoutes } from "./invitations";
import { registerOrganizationDomainRoutes } from "./organization-domains";
import { registerTemplateRoutes } from "./templates";
import { registerWaitlistRoutes } from "./waitlist";
import { registerWebhookAppRoutes } from "./webhook-app";
import { registerOrganizationRoutes } from "./organizations";
import { withDeclaredBodyFields } from "./body-params";
import { withDeclaredQueryParams } from "./query-params";
import { registerSessionRoutes } from "./sessions";
import { registerUserRoutes } from "./users";

export type BackendApiOptions = {
  store: Store;
  key: SigningKey;
  faults: Faults;
  secretKey: string;
  /** Where browsers reach the Frontend API, for the links in invitations and sign-in tokens. */
  frontendApiUrl: (req: Request) => string;
  /** The origins the emulator was started with (`--allowed-origin`), which `GET /v1/instance` shows. */
  allowedOrigins?: readonly string[];
  /** A fresh address of the emulator's read-only webhook portal (`svix_url`). */
  webhookPortalUrl?: (req: Request) => string;
};

/** Clerk's Backend API, one module per resource. Bearer secret key required. */
export function createBackendApi(options: BackendApiOptions): Router {
  const { store, key, faults, secretKey, frontendApiUrl } = options;
  const router = express.Router();
  router.use(express.json({ limit: "64kb" }));
  router.use(express.urlencoded({ extended: true, limit: "64kb" }));
  // Each GET takes the query parameters its entry in query-params.ts names, each write the body
  // fields its entry in body-params.ts keeps or follows; anything else is refused, never ignored.
  const route = withDeclaredBodyFields(withDeclaredQueryParams(createRegistrar(router, "bapi", faults)));
  // Public in Clerk: registered before the secret key is asked for.
  registerInterstitialRoute(route);
  router.use((req, res, next) => {
    if (req.get("authorization") === `Bearer ${secretKey}`) return next();
    res
      .status(401)
      .type("application/json")
      .send(JSON.stringify(new ApiError(401, "authentication_invalid", "Invalid secret key").toJSON()));
  });
  const bapi = createBackendContext(store, frontendApiUrl);

  route("GET", "/v1/jwks", () => jwks(key));
  registerUserRoutes(route, bapi);
  registerOrganizationRoutes(route, bapi);
  registerInvitationRoutes(route, bapi);
  registerSessionRoutes(route, bapi);
  registerOrganizationDomainRoutes(route, bapi);
  registerInstanceRoutes(route, bapi, { startupOrigins: options.allowedOrigins ?? [] });
  registerDomainRoutes(route, bapi, secretKey);
  registerTemplateRoutes(route, bapi);
  registerWaitlistRoutes(route, bapi);
  if (options.webhookPortalUrl) registerWebhookAppRoutes(route, bapi, options.webhookPortalUrl);

  router.use(notImplemented);
  return router;
}
