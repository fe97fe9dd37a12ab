import express, { type Request, type Router } from "express";
import type { Faults } from "../faults";
import { ApiError, createRegistrar, notImplemented } from "../routing";
import type { Store } from "../store";
import { jwks, type SigningKey } from "../tokens";
import { createBackendContext } from "./context";
import { registerInvitationRoutes } from "./invitations";
import { registerOrganizationRoutes } from "./organizations";
import { withDeclaredBodyFields } from "./body-params";
import { withDeclaredQueryParams } from "./query-params";
import { registerSessionRoutes } from "./sessions";
import { registerUserRoutes } from "./users";
import { rawUploadBody } from "../uploads";
import { registerEmailAddressRoutes } from "./email-addresses";
import { registerRestrictionRoutes } from "./restrictions";
import { registerUserAccessRoutes } from "./user-access";
import { registerUserProfileRoutes } from "./user-profile";

export type BackendApiOptions = {
  store: Store;
  key: SigningKey;
  faults: Faults;
  secretKey: string;
  /** Where browsers reach the Frontend API, for the links in invitations and sign-in tokens. */
  frontendApiUrl: (req: Request) => string;
};

/** Clerk's Backend API, one module per resource. Bearer secret key required. */
export function createBackendApi({ store, key, faults, secretKey, frontendApiUrl }: BackendApiOptions): Router {
  const router = express.Router();
  router.use(express.json({ limit: "64kb" }));
  router.use(express.urlencoded({ extended: true, limit: "64kb" }));
  // A profile image comes as a multipart form (@clerk/backend's `updateUserProfileImage`).
  router.use("/v1/users/:id/profile_image", rawUploadBody);
  router.use((req, res, next) => {
    if (req.get("authorization") === `Bearer ${secretKey}`) return next();
    res
      .status(401)
      .type("application/json")
      .send(JSON.stringify(new ApiError(401, "authentication_invalid", "Invalid secret key").toJSON()));
  });
  // Each GET takes the query parameters its entry in query-params.ts names, each write the body
  // fields its entry in body-params.ts keeps or follows; anything else is refused, never ignored.
  const route = withDeclaredBodyFields(withDeclaredQueryParams(createRegistrar(router, "bapi", faults)));
  const bapi = createBackendContext(store, frontendApiUrl);

  route("GET", "/v1/jwks", () => jwks(key));
  registerUserRoutes(route, bapi);
  registerOrganizationRoutes(route, bapi);
  registerInvitationRoutes(route, bapi);
  registerSessionRoutes(route, bapi);
  registerUserAccessRoutes(route, bapi);
  registerUserProfileRoutes(route, bapi);
  registerEmailAddressRoutes(route, bapi);
  registerRestrictionRoutes(route, bapi);

  router.use(notImplemented);
  return router;
}
