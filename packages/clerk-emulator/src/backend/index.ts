import express, { type Request, type Router } from "express";
import type { Faults } from "../http/faults";
import { ApiError } from "../domain/errors";
import { createRegistrar, notImplemented } from "../http/routing";
import type { Store } from "../state/store";
import { jwks, type TokenSettings } from "../domain/tokens";
import { createBackendContext } from "./context";
import { withDeclarations } from "./declarations";
import { rawUploadBody } from "../http/uploads";
import { registerDomainRoutes } from "./domains";
import { registerInstanceRoutes } from "./instance";
import { registerInterstitialRoute } from "./interstitial";
import { registerInvitationRoutes } from "./invitations";
import { registerOrganizationDomainRoutes } from "./organization-domains";
import { registerMembershipRoutes } from "./organization-members";
import { registerOrganizationRoleRoutes } from "./organization-roles";
import { registerTemplateRoutes } from "./templates";
import { registerWaitlistRoutes } from "./waitlist";
import { registerWebhookAppRoutes } from "./webhook-app";
import { registerOrganizationRoutes } from "./organizations";
import { registerPhoneNumberRoutes } from "./phone-numbers";
import { registerSessionRoutes } from "./sessions";
import { registerActorTokenRoutes } from "./actor-tokens";
import { registerClientRoutes } from "./clients";
import { registerJwtTemplateRoutes } from "./jwt-templates";
import { registerSessionTokenRoutes } from "./session-tokens";
import { registerUserRoutes } from "./users";
import { registerUserMfaRoutes } from "./users-mfa";
import { registerEmailAddressRoutes } from "./email-addresses";
import { registerRestrictionRoutes } from "./restrictions";
import { registerUserAccessRoutes } from "./user-access";
import { registerUserProfileRoutes } from "./user-profile";

export type BackendApiOptions = {
  store: Store;
  faults: Faults;
  secretKey: string;
  /** Where browsers reach the Frontend API, for the links in invitations and sign-in tokens. */
  frontendApiUrl: (req: Request) => string;
  /** What session tokens and JWT templates' tokens are minted with: the Frontend and control APIs get the same. */
  tokens: TokenSettings;
  /** The origins the emulator was started with (`--allowed-origin`), which `GET /v1/instance` shows. */
  allowedOrigins?: readonly string[];
  /** A fresh address of the emulator's read-only webhook portal (`svix_url`). */
  webhookPortalUrl?: (req: Request) => string;
};

/** Clerk's Backend API, one module per resource. Bearer secret key required. */
export function createBackendApi(options: BackendApiOptions): Router {
  const { store, faults, secretKey, frontendApiUrl, tokens } = options;
  const router = express.Router();
  router.use(express.json({ limit: "64kb" }));
  router.use(express.urlencoded({ extended: true, limit: "64kb" }));
  // Logos are uploaded as multipart forms (only there: bodies elsewhere are JSON or forms).
  router.use("/v1/organizations/:id/logo", rawUploadBody);
  // A profile image comes as a multipart form (@clerk/backend's `updateUserProfileImage`).
  router.use("/v1/users/:id/profile_image", rawUploadBody);
  // Each operation takes what it declares where it is registered (declarations.ts): anything else is
  // refused, never ignored.
  const route = withDeclarations(createRegistrar(router, "bapi", faults));
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

  route("GET", "/v1/jwks", { query: [] }, () => jwks(tokens.key));
  registerUserRoutes(route, bapi);
  registerUserMfaRoutes(route, bapi);
  registerOrganizationRoutes(route, bapi);
  registerInvitationRoutes(route, bapi);
  registerMembershipRoutes(route, bapi);
  registerOrganizationRoleRoutes(route, bapi);
  registerSessionRoutes(route, bapi);
  registerSessionTokenRoutes(route, bapi, tokens);
  registerJwtTemplateRoutes(route, bapi);
  registerActorTokenRoutes(route, bapi);
  registerClientRoutes(route, bapi);
  registerPhoneNumberRoutes(route, bapi);
  registerUserAccessRoutes(route, bapi);
  registerUserProfileRoutes(route, bapi);
  registerEmailAddressRoutes(route, bapi);
  registerRestrictionRoutes(route, bapi);
  registerOrganizationDomainRoutes(route, bapi);
  registerInstanceRoutes(route, bapi, { startupOrigins: options.allowedOrigins ?? [] });
  registerDomainRoutes(route, bapi, secretKey);
  registerTemplateRoutes(route, bapi);
  registerWaitlistRoutes(route, bapi);
  if (options.webhookPortalUrl) registerWebhookAppRoutes(route, bapi, options.webhookPortalUrl);

  router.use(notImplemented);
  return router;
}
