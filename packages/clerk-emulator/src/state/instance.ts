import type { InstanceRecord, State } from "./records";

/**
 * The instance's settings, as Clerk's Backend API reads and changes them
 * (`/v1/instance`, `/v1/instance/organization_settings`, `…/communication`,
 * `…/protect`, `…/oauth_application_settings`), with Clerk's defaults for a
 * production instance. Where a setting has an effect the emulator plays
 * (the environment clerk-js reads, allowed origins, organizations), it is
 * read from here.
 */
export function defaultInstance(): InstanceRecord {
  return {
    settings: {
      testMode: false,
      hibp: false,
      supportEmail: null,
      clerkJsVersion: null,
      developmentOrigin: null,
      allowedOrigins: [],
      urlBasedSessionSyncing: false,
      preferredSignInStrategy: "password",
    },
    organizationSettings: {
      enabled: true,
      maxAllowedMemberships: 0,
      adminDeleteEnabled: true,
      domainsEnabled: false,
      domainsEnrollmentModes: [],
      creatorRole: "org:admin",
      domainsDefaultRole: "org:member",
    },
    blockedCountryCodes: [],
    protect: { rulesEnabled: false, specterEnabled: false },
    oauthApplicationSettings: {
      dynamic_oauth_client_registration: false,
      default_scopes: null,
      oauth_jwt_access_tokens: false,
      client_id_metadata_documents_advertised: false,
      client_id_metadata_documents_only_allow_pre_registered_clients: false,
      client_id_metadata_documents_block_implicitly_allowed_clients: false,
    },
    satelliteDomains: [],
    redirectUrls: [],
    templates: {},
    svixApp: true,
    homeUrl: null,
  };
}

/** Fills in what a state file written before these settings existed lacks. */
export function upgradeInstance(state: State): void {
  const defaults = defaultInstance();
  const saved: Partial<InstanceRecord> = state.instance ?? {};
  state.instance = {
    ...defaults,
    ...saved,
    settings: { ...defaults.settings, ...saved.settings },
    organizationSettings: { ...defaults.organizationSettings, ...saved.organizationSettings },
    protect: { ...defaults.protect, ...saved.protect },
    oauthApplicationSettings: { ...defaults.oauthApplicationSettings, ...saved.oauthApplicationSettings },
  };
  state.organizationDomains ??= [];
  state.organizationSuggestions ??= [];
  state.membershipRequests ??= [];
  state.waitlistEntries ??= [];
}
