import type { Response } from "express";
import { ENROLLMENT_MODES } from "../domain/organization-domains";
import { normaliseOrigin } from "../http/proxy";
import {
  blockCountryCodes,
  changeHomeUrl,
  changeInstanceSettings,
  changeOAuthApplicationSettings,
  changeOrganizationSettings,
  changeProtectSettings,
  creatorRole,
  settingRole,
} from "../domain/instance";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { DomainEnrollmentMode, InstanceRecord, Store } from "../state/store";
import type { BackendContext, Route } from "./context";
import { bodyOf, isTrue } from "./declarations";

/** Every field of `PATCH /v1/instance/oauth_application_settings` is refused, with this reason. */
const NO_OAUTH_APPS = { refused: "The emulator is not an OAuth identity provider (its GUIDE.md)." };

/**
 * The instance's settings (`/v1/instance…`). Each is stored and read back;
 * where the emulator plays what a setting does, it reads it from the store:
 * the environment clerk-js loads (`json/environment.ts`), the origins the
 * handshake may redirect to (`allowed_origins`), new organizations' member
 * limit and creator role, verified domains (`domains_enabled`, their modes and
 * default role), organization slugs, and whether admins may delete.
 */
const invalid = (param: string, why: string) => new ApiError(422, "form_param_value_invalid", "is invalid", param, why);

function bool(value: unknown, param: string): boolean {
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new ApiError(422, "form_param_type_invalid", "must be a boolean", param, `${param} must be true or false.`);
}

/** A field given and not null: Clerk's "leave as it is" for null. */
const given = (body: Record<string, unknown>, name: string) => body[name] !== undefined && body[name] !== null;

function stringList(value: unknown, param: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new ApiError(422, "form_param_type_invalid", "must be a list of strings", param);
  }
  return value as string[];
}

export function organizationSettingsJSON(store: Store) {
  const s = store.state.instance.organizationSettings;
  return {
    object: "organization_settings",
    enabled: s.enabled,
    max_allowed_memberships: s.maxAllowedMemberships,
    max_allowed_roles: 10,
    max_allowed_domains: 10,
    creator_role: s.creatorRole,
    admin_delete_enabled: s.adminDeleteEnabled,
    domains_enabled: s.domainsEnabled,
    slug_disabled: !store.settings.organizationSlugs,
    domains_enrollment_modes: s.domainsEnrollmentModes,
    domains_default_role: s.domainsDefaultRole,
  };
}

function instanceJSON(store: Store, extraOrigins: readonly string[]) {
  const allowed = [...extraOrigins, ...store.state.instance.settings.allowedOrigins];
  return {
    object: "instance",
    id: "ins_emulator",
    environment_type: "production",
    allowed_origins: allowed.length ? [...new Set(allowed)] : null,
    workspace_id: null,
  };
}

function updateInstance(store: Store, body: Record<string, unknown>): void {
  const next: Partial<InstanceRecord["settings"]> = {};
  if (given(body, "test_mode")) next.testMode = bool(body.test_mode, "test_mode");
  if (given(body, "hibp")) next.hibp = bool(body.hibp, "hibp");
  if (body.support_email !== undefined) next.supportEmail = str(body.support_email) || null;
  if (body.clerk_js_version !== undefined) next.clerkJsVersion = str(body.clerk_js_version) || null;
  if (body.development_origin !== undefined) next.developmentOrigin = str(body.development_origin) || null;
  if (body.allowed_origins !== undefined) {
    next.allowedOrigins = stringList(body.allowed_origins, "allowed_origins").map((o) => {
      const origin = normaliseOrigin(o);
      if (!origin) throw invalid("allowed_origins", `${o} is not an origin (scheme, host and port).`);
      return origin;
    });
  }
  // `cookieless_dev` is the deprecated name of URL-based session syncing.
  for (const name of ["url_based_session_syncing", "cookieless_dev"]) {
    if (given(body, name)) next.urlBasedSessionSyncing = bool(body[name], name);
  }
  const strategy = body.preferred_sign_in_strategy_when_password_required;
  if (strategy !== undefined && strategy !== null) {
    if (strategy !== "password" && strategy !== "otp" && strategy !== "") {
      throw invalid("preferred_sign_in_strategy_when_password_required", "must be password, otp or empty.");
    }
    next.preferredSignInStrategy = strategy;
  }
  changeInstanceSettings(store, next);
}

function updateOrganizationSettings(store: Store, body: Record<string, unknown>): void {
  const next: Partial<InstanceRecord["organizationSettings"]> = {};
  if (given(body, "enabled")) next.enabled = bool(body.enabled, "enabled");
  if (given(body, "max_allowed_memberships")) {
    const max = Number(body.max_allowed_memberships);
    if (!Number.isInteger(max) || max < 0)
      throw invalid("max_allowed_memberships", "must be a whole number, 0 or more.");
    next.maxAllowedMemberships = max;
  }
  if (given(body, "admin_delete_enabled"))
    next.adminDeleteEnabled = bool(body.admin_delete_enabled, "admin_delete_enabled");
  if (given(body, "domains_enabled")) next.domainsEnabled = bool(body.domains_enabled, "domains_enabled");
  if (body.domains_enrollment_modes !== undefined) {
    const modes = stringList(body.domains_enrollment_modes, "domains_enrollment_modes");
    const allowed: DomainEnrollmentMode[] = ["automatic_invitation", "automatic_suggestion"];
    const wrong = modes.find((m) => !allowed.includes(m as DomainEnrollmentMode));
    if (wrong) throw invalid("domains_enrollment_modes", `${wrong} is not one of ${allowed.join(", ")}.`);
    next.domainsEnrollmentModes = [...new Set(modes)] as DomainEnrollmentMode[];
  }
  // Roles are named by id in these settings (`role_admin`…); a key is accepted too.
  if (given(body, "creator_role_id")) next.creatorRole = creatorRole(store, str(body.creator_role_id) ?? "").key;
  if (given(body, "domains_default_role_id")) {
    const idOrKey = str(body.domains_default_role_id) ?? "";
    next.domainsDefaultRole = settingRole(store, idOrKey, "domains_default_role_id").key;
  }
  // Clerk's instance-wide slug switch.
  const slugs = given(body, "slug_disabled") ? !bool(body.slug_disabled, "slug_disabled") : undefined;
  changeOrganizationSettings(store, next, slugs);
}

/** Clerk answers 202 with no body when a domain change is accepted (it takes effect after DNS and certificates). */
function accepted(res: Response): null {
  res.status(202).end();
  return null;
}

export type InstanceRouteOptions = {
  /** The origins the emulator was started with (`--allowed-origin`), shown beside those set here. */
  startupOrigins: readonly string[];
};

/** The instance, its organization settings, communication, protection and OAuth application settings. */
export function registerInstanceRoutes(route: Route, { store }: BackendContext, options: InstanceRouteOptions): void {
  const instance = () => store.state.instance;

  route("GET", "/v1/instance", { query: [] }, () => instanceJSON(store, options.startupOrigins));
  route(
    "PATCH",
    "/v1/instance",
    {
      body: {
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
    },
    (req, res) => {
      updateInstance(store, bodyOf(req.body));
      res.status(204).end();
      return null;
    },
  );

  route("GET", "/v1/instance/organization_settings", { query: [] }, () => organizationSettingsJSON(store));
  route(
    "PATCH",
    "/v1/instance/organization_settings",
    {
      body: {
        enabled: "kept",
        max_allowed_memberships: "kept",
        admin_delete_enabled: "kept",
        domains_enabled: "kept",
        slug_disabled: "kept",
        domains_enrollment_modes: "kept",
        creator_role_id: "kept",
        domains_default_role_id: "kept",
      },
    },
    (req) => {
      updateOrganizationSettings(store, bodyOf(req.body));
      return organizationSettingsJSON(store);
    },
  );

  const communicationJSON = () => ({
    object: "instance_communication",
    blocked_country_codes: instance().blockedCountryCodes,
  });
  route("GET", "/v1/instance/communication", { query: [] }, communicationJSON);
  route("PATCH", "/v1/instance/communication", { body: { blocked_country_codes: "kept" } }, (req) => {
    const body = bodyOf(req.body);
    if (body.blocked_country_codes !== undefined) {
      const codes =
        body.blocked_country_codes === null ? [] : stringList(body.blocked_country_codes, "blocked_country_codes");
      blockCountryCodes(store, codes);
    }
    return communicationJSON();
  });

  const protectJSON = () => ({
    object: "instance_protect",
    rules_enabled: instance().protect.rulesEnabled,
    specter_enabled: instance().protect.specterEnabled,
    checks_bypassed: false,
  });
  route("GET", "/v1/instance/protect", { query: [] }, protectJSON);
  route("PATCH", "/v1/instance/protect", { body: { rules_enabled: "kept", specter_enabled: "kept" } }, (req) => {
    const body = bodyOf(req.body);
    const next: Partial<InstanceRecord["protect"]> = {};
    if (given(body, "rules_enabled")) next.rulesEnabled = bool(body.rules_enabled, "rules_enabled");
    if (given(body, "specter_enabled")) next.specterEnabled = bool(body.specter_enabled, "specter_enabled");
    changeProtectSettings(store, next);
    return protectJSON();
  });

  const oauthJSON = () => ({ object: "oauth_application_settings", ...instance().oauthApplicationSettings });
  route("GET", "/v1/instance/oauth_application_settings", { query: [] }, oauthJSON);
  route(
    "PATCH",
    "/v1/instance/oauth_application_settings",
    {
      body: {
        dynamic_oauth_client_registration: NO_OAUTH_APPS,
        default_scopes: NO_OAUTH_APPS,
        oauth_jwt_access_tokens: NO_OAUTH_APPS,
        client_id_metadata_documents_advertised: NO_OAUTH_APPS,
        client_id_metadata_documents_only_allow_pre_registered_clients: NO_OAUTH_APPS,
        client_id_metadata_documents_block_implicitly_allowed_clients: NO_OAUTH_APPS,
      },
    },
    (req) => {
      const body = bodyOf(req.body);
      const next: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(body)) {
        if (value === undefined) continue;
        if (name === "default_scopes") next[name] = value === null ? null : stringList(value, name);
        else if (value !== null) next[name] = bool(value, name);
      }
      changeOAuthApplicationSettings(store, next);
      return oauthJSON();
    },
  );

  const changeDomain = (req: Parameters<Parameters<Route>[3]>[0], res: Response) => {
    const body = bodyOf(req.body);
    const homeUrl = str(body.home_url);
    if (homeUrl !== null) {
      let url: URL | null = null;
      try {
        url = new URL(homeUrl);
      } catch {
        url = null;
      }
      if (!url || !/^https?:$/.test(url.protocol)) throw invalid("home_url", "home_url must be a full URL.");
      changeHomeUrl(store, url.origin);
    }
    if (body.is_secondary !== undefined) isTrue(body.is_secondary);
    return accepted(res);
  };
  route(
    "POST",
    "/v1/instance/change_domain",
    {
      // The new home URL is kept and shown as the primary domain's name; no DNS or certificate to change.
      body: { home_url: "kept", is_secondary: "flag" },
    },
    changeDomain,
  );
  route("PUT", "/v1/beta_features/domain", { body: { home_url: "kept", is_secondary: "flag" } }, changeDomain);
  // @clerk/backend 2 and 3's betaFeatures.changeDomain() post here, a path Clerk's description no longer lists.
  route(
    "POST",
    "/v1/beta_features/change_domain",
    {
      // Not in Clerk's description (contract/allowlist.ts): what @clerk/backend's betaFeatures.changeDomain sends.
      body: { home_url: "kept", is_secondary: "flag" },
    },
    changeDomain,
  );

  // The deprecated home of three instance settings; the emulator's allow-list lives with the restrictions.
  route(
    "PATCH",
    "/v1/beta_features/instance_settings",
    {
      body: {
        test_mode: "kept",
        restricted_to_allowlist: { refused: "Send allowlist to PATCH /v1/instance/restrictions instead." },
        from_email_address: { refused: "Set each template's from_email_name (PUT /v1/templates/email/:slug) instead." },
        // Sign-ups are always progressive in the emulator.
        progressive_sign_up: "flag",
      },
    },
    (req) => {
      const body = bodyOf(req.body);
      const changes: Partial<InstanceRecord["settings"]> = {};
      if (given(body, "test_mode")) changes.testMode = bool(body.test_mode, "test_mode");
      changeInstanceSettings(store, changes);
      return {
        object: "instance_settings",
        id: "ins_emulator",
        restricted_to_allowlist: false,
        from_email_address: instance().templates["email/verification_code"]?.fromEmailName ?? "notifications",
        progressive_sign_up: true,
        enhanced_email_deliverability: false,
      };
    },
  );
}

export type { InstanceRecord };
export { ENROLLMENT_MODES };
