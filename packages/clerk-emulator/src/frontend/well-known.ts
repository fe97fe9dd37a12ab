import { ApiError } from "../domain/errors";
import { jwks } from "../domain/tokens";
import type { FrontendContext, Route } from "./context";

/**
 * The documents Clerk's Frontend API serves under `/.well-known/` (Clerk's
 * FAPI OpenAPI, tag "Well Known"). The emulator's Frontend API is mounted on
 * the app's origin (local mode's `/__clerk`, or a proxy's path), so they are
 * at `<that URL>/.well-known/…`, as a proxied Clerk instance serves them.
 */
export function registerWellKnownRoutes(route: Route, fapi: FrontendContext): void {
  // The instance's signing key: the same set the Backend API's `GET /v1/jwks` gives.
  route("GET", "/.well-known/jwks.json", (_req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    return jwks(fapi.tokens.key);
  });

  /**
   * OpenID Connect discovery. `issuer` is what the session tokens carry in
   * `iss` (the Frontend API the publishable key names), so a verifier that
   * reads it here agrees with the tokens; every URL is where this Frontend
   * API really answers. The OAuth endpoints are Clerk's paths for its OAuth
   * applications, which the emulator leaves out: they answer Clerk's 404.
   */
  route("GET", "/.well-known/openid-configuration", (req) => {
    const base = fapi.frontendApiUrl(req);
    return {
      issuer: fapi.tokens.issuer,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/token/revoke`,
      introspection_endpoint: `${base}/oauth/token_info`,
      userinfo_endpoint: `${base}/oauth/userinfo`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      scopes_supported: ["openid", "profile", "email", "public_metadata", "private_metadata"],
      response_types_supported: ["code"],
      response_modes_supported: ["query", "form_post"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      claims_supported: ["sub", "iss", "aud", "exp", "iat", "name", "family_name", "given_name", "email", "picture"],
      code_challenge_methods_supported: ["S256"],
      backchannel_logout_supported: false,
      frontchannel_logout_supported: false,
    };
  });

  // RFC 8414: the same server described for OAuth 2.0 clients.
  route("GET", "/.well-known/oauth-authorization-server", (req) => {
    const base = fapi.frontendApiUrl(req);
    return {
      issuer: fapi.tokens.issuer,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/token/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      scopes_supported: ["openid", "profile", "email", "public_metadata", "private_metadata"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      claims_supported: ["sub", "iss", "aud", "exp", "iat", "name", "family_name", "given_name", "email", "picture"],
      code_challenge_methods_supported: ["S256"],
    };
  });

  // The instance has no native applications (Android, iOS), so these name none.
  route("GET", "/.well-known/assetlinks.json", () => []);
  route("GET", "/.well-known/apple-app-site-association", () => ({ webcredentials: { apps: [] } }));

  // Only for instances whose passkeys use the `auth_host` RP ID strategy; this one has no passkeys.
  route("GET", "/.well-known/webauthn", () => {
    throw new ApiError(404, "resource_not_found", "Not found");
  });
}
