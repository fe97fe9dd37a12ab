import type { FieldRule } from "./body-params";

/**
 * The body fields and query parameters of the instance-level endpoints
 * (backend/instance.ts, domains.ts, organization-domains.ts,
 * templates.ts, waitlist.ts, webhook-app.ts), merged into the tables of
 * body-params.ts and query-params.ts: each field Clerk's OpenAPI description
 * lists, kept, followed, or refused with the reason.
 */
const NO_OAUTH_APPS = { refused: "The emulator is not an OAuth identity provider (its GUIDE.md)." };

export const INSTANCE_BODY_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  "POST /v1/organizations/:id/domains": { name: "kept", enrollment_mode: "kept", verified: "kept" },
  "PATCH /v1/organizations/:id/domains/:domainId": { enrollment_mode: "kept", verified: "kept" },
  "DELETE /v1/organizations/:id/domains/:domainId": {},
  "POST /v1/organizations/:id/domains/:domainId/verify_ownership": {},
  "PATCH /v1/instance": {
    test_mode: "kept",
    hibp: "kept",
    support_email: "kept",
    clerk_js_version: "kept",
    development_origin: "kept",
    allowed_origins: "kept",
    cookieless_dev: "kept",
    url_based_session_syncing: "kept",
    preferred_sign_in_strategy_when_password_required: "kept",
  },
  "PATCH /v1/instance/organization_settings": {
    enabled: "kept",
    max_allowed_memberships: "kept",
    admin_delete_enabled: "kept",
    domains_enabled: "kept",
    slug_disabled: "kept",
    domains_enrollment_modes: "kept",
    creator_role_id: "kept",
    domains_default_role_id: "kept",
  },
  "PATCH /v1/instance/communication": { blocked_country_codes: "kept" },
  "PATCH /v1/instance/protect": { rules_enabled: "kept", specter_enabled: "kept" },
  "PATCH /v1/instance/oauth_application_settings": {
    dynamic_oauth_client_registration: NO_OAUTH_APPS,
    default_scopes: NO_OAUTH_APPS,
    oauth_jwt_access_tokens: NO_OAUTH_APPS,
    client_id_metadata_documents_advertised: NO_OAUTH_APPS,
    client_id_metadata_documents_only_allow_pre_registered_clients: NO_OAUTH_APPS,
    client_id_metadata_documents_block_implicitly_allowed_clients: NO_OAUTH_APPS,
  },
  // The new home URL is kept and shown as the primary domain's name; no DNS or certificate to change.
  "POST /v1/instance/change_domain": { home_url: "kept", is_secondary: "flag" },
  "PUT /v1/beta_features/domain": { home_url: "kept", is_secondary: "flag" },
  // Not in Clerk's description (contract/allowlist.ts): what @clerk/backend's betaFeatures.changeDomain sends.
  "POST /v1/beta_features/change_domain": { home_url: "kept", is_secondary: "flag" },
  "PATCH /v1/beta_features/instance_settings": {
    test_mode: "kept",
    restricted_to_allowlist: { refused: "Send allowlist to PATCH /v1/instance/restrictions instead." },
    from_email_address: { refused: "Set each template's from_email_name (PUT /v1/templates/email/:slug) instead." },
    // Sign-ups are always progressive in the emulator.
    progressive_sign_up: "flag",
  },
  "POST /v1/domains": { name: "kept", is_satellite: "kept", proxy_url: "kept" },
  "PATCH /v1/domains/:id": { name: "kept", proxy_url: "kept", is_secondary: "kept" },
  "DELETE /v1/domains/:id": {},
  "POST /v1/redirect_urls": { url: "kept" },
  "DELETE /v1/redirect_urls/:id": {},
  "POST /v1/proxy_checks": { domain_id: "kept", proxy_url: "kept" },
  "PUT /v1/templates/:type/:slug": {
    name: "kept",
    subject: "kept",
    markup: "kept",
    body: "kept",
    delivered_by_clerk: "kept",
    from_email_name: "kept",
    reply_to_email_name: "kept",
  },
  "POST /v1/templates/:type/:slug/revert": {},
  "POST /v1/templates/:type/:slug/preview": {
    subject: "kept",
    body: "kept",
    from_email_name: "kept",
    reply_to_email_name: "flag",
  },
  "POST /v1/templates/:type/:slug/toggle_delivery": { delivered_by_clerk: "kept" },
  "POST /v1/waitlist_entries": { email_address: "kept", notify: "flag" },
  // An array of `{email_address, notify}`, each checked by the endpoint.
  "POST /v1/waitlist_entries/bulk": {},
  "DELETE /v1/waitlist_entries/:id": {},
  "POST /v1/waitlist_entries/:id/invite": { ignore_existing: "flag" },
  "POST /v1/waitlist_entries/:id/reject": {},
  "POST /v1/webhooks/svix": {},
  "DELETE /v1/webhooks/svix": {},
  "POST /v1/webhooks/svix_url": {},
};

export const INSTANCE_QUERY_PARAMS: Readonly<Record<string, readonly string[]>> = {
  "/v1/organizations/:id/domains": ["verified", "enrollment_mode", "limit", "offset"],
  "/v1/organization_domains": [
    "organization_id",
    "verified",
    "enrollment_mode",
    "query",
    "domains",
    "order_by",
    "offset",
    "limit",
  ],
  "/v1/instance": [],
  "/v1/instance/organization_settings": [],
  "/v1/instance/communication": [],
  "/v1/instance/protect": [],
  "/v1/instance/oauth_application_settings": [],
  "/v1/domains": [],
  "/v1/redirect_urls": ["paginated", "limit", "offset"],
  "/v1/redirect_urls/:id": [],
  "/v1/templates/:type": ["paginated", "limit", "offset"],
  "/v1/templates/:type/:slug": [],
  "/v1/waitlist_entries": ["limit", "offset", "query", "status", "order_by"],
  "/v1/public/interstitial": [
    "frontendApi",
    "frontend_api",
    "publishable_key",
    "proxy_url",
    "domain",
    "sign_in_url",
    "use_domain_for_script",
  ],
};
