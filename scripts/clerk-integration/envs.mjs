// Clerk's integration environments (integration/presets/envs.ts) as the emulator reproduces them.
// Each names one of Clerk's test instances by its keys ("with-email-codes", …); what the instance is
// set to in Clerk's dashboard is not in the suite, so each entry says what the specs show of it:
//   instance     dashboard switches, keyed as Clerk's environment JSON, written to a file for
//                `--instance <file.json>` (only keys that flag takes: a file with any other is refused)
//   development  a pk_test instance (every test instance but sessions-prod-*): `--development`
//   flags        emulator flags that exist for a setting already
//   appEnv       the app's variables the preset sets (before the template's VITE_ prefix)
//   roles        the instance's custom organization roles, as its dashboard lists them: made through the
//                Backend API (POST /v1/organization_roles) once the group's emulator is up
//   needs        what the emulator has no way to be yet: the env's specs are recorded, not run
// An env not listed here is recorded as needing its instance's settings.

const SIGN_IN_UP_URLS = { CLERK_SIGN_IN_URL: "/sign-in", CLERK_SIGN_UP_URL: "/sign-up" };
// transitive-state and session-token-cache/refresh-timer-cleanup sign a second user in beside the
// first, and custom-pages reads the user button's multi-session actions: with-email-codes is multi-session.
const MULTI_SESSION = { auth_config: { single_session_mode: false } };

// last-authentication-strategy counts three social buttons on <SignIn/>, Google's among them (which other
// two Clerk's instance has is not in the suite: GitHub and Discord stand in).
const THREE_SOCIAL_CONNECTIONS = {
  oauth_google: { enabled: true },
  oauth_github: { enabled: true },
  oauth_discord: { enabled: true },
};

// Clerk's test instances' custom OAuth provider: a second Clerk application ("oauth-provider"), which only
// Clerk's servers are. Its button is drawn and a sign-in with it answers its authorize URL (oauth-flows'
// combined-flow test reads the sign-in's redirect_url and no further); a loopback address where nothing
// answers stands for the provider (and its logo), so a browser sent on gets a refused connection, never
// the internet.
// The tests that sign in at the provider are left out (plan.mjs, oauthProviderTests).
const E2E_OAUTH_PROVIDER = {
  oauth_custom_e2e_oauth_provider: {
    enabled: true,
    name: "E2E OAuth Provider",
    authorize_url: "http://127.0.0.1:9/oauth/authorize",
    // A logo, as Clerk's has one: <SignIn/> draws it with its alt text "Sign in with E2E OAuth Provider"
    // (the button's name the spec looks for), where a provider without one gets only its initial.
    logo_url: "http://127.0.0.1:9/e2e-oauth-provider.png",
  },
};

const withEmailCodes = {
  instance: { ...MULTI_SESSION, user_settings: { social: THREE_SOCIAL_CONNECTIONS } },
  development: true,
  appEnv: SIGN_IN_UP_URLS,
};

export const ENVS = {
  withEmailCodes,
  // The same instance; the app sets `experimental.persistClient` off.
  withEmailCodes_destroy_client: {
    ...withEmailCodes,
    appEnv: { ...SIGN_IN_UP_URLS, EXPERIMENTAL_PERSIST_CLIENT: "false" },
  },
  // The same instance; the app names no sign-up URL, so <SignIn/> runs the combined sign-in-or-up flow.
  // Its custom OAuth provider: oauth-flows' combined-flow test clicks its button.
  withSignInOrUpFlow: {
    ...withEmailCodes,
    instance: {
      ...MULTI_SESSION,
      user_settings: { social: { ...THREE_SOCIAL_CONNECTIONS, ...E2E_OAUTH_PROVIDER } },
    },
    appEnv: { CLERK_SIGN_IN_URL: "/sign-in" },
  },
  withEmailCodesQuickstart: { ...withEmailCodes, appEnv: {} },
  withEmailLinks: {
    instance: MULTI_SESSION,
    development: true,
    flags: ["--email-link-verification", "on"],
    appEnv: SIGN_IN_UP_URLS,
  },
  withSignInOrUpEmailLinksFlow: {
    instance: MULTI_SESSION,
    development: true,
    flags: ["--email-link-verification", "on"],
    appEnv: { CLERK_SIGN_IN_URL: "/sign-in" },
  },
  withLegalConsent: {
    instance: { user_settings: { sign_up: { legal_consent_enabled: true } } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  withRestrictedMode: {
    instance: { ...MULTI_SESSION, user_settings: { sign_up: { mode: "restricted" } } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  withSignInOrUpwithRestrictedModeFlow: {
    instance: { ...MULTI_SESSION, user_settings: { sign_up: { mode: "restricted" } } },
    development: true,
    appEnv: { CLERK_SIGN_IN_URL: "/sign-in" },
  },
  withWaitlistMode: {
    instance: { ...MULTI_SESSION, user_settings: { sign_up: { mode: "waitlist" } } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  withPasskeys: { instance: {}, development: true, flags: ["--passkeys", "on"], appEnv: SIGN_IN_UP_URLS },
  // A production instance whose clerk-js comes from Clerk's CDN (the preset empties CLERK_JS_URL).
  sessionsProd1: { instance: {}, development: false, appEnv: SIGN_IN_UP_URLS, needs: ["clerk-js from Clerk's CDN"] },
  withCustomRoles: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["the instance's custom organization roles"] },
  // Reverification on: <UserProfile/>'s changes wait for a fresh factor. The spec makes a member with the
  // custom role org:viewer (the instance's, beside Clerk's admin and member).
  withReverification: {
    instance: { auth_config: { reverification: true } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
    roles: [{ key: "org:viewer", name: "Viewer", description: "Reads the organization; changes nothing." }],
  },
  // Personal accounts off: a session without an organization is pending with the choose-organization
  // task. Multi-session: session-tasks-multi-session switches accounts with <UserButton/>. "Verify at
  // sign-up" off: session-tasks-sign-up signs up with an address and a password and expects to be signed
  // in with no code asked (its page object enters none), which only an instance that does not verify at
  // sign-up does; no spec of this env enters a sign-up code.
  withSessionTasks: {
    instance: {
      ...MULTI_SESSION,
      organization_settings: { force_organization_selection: true },
      user_settings: { attributes: { email_address: { verify_at_sign_up: false } }, social: E2E_OAUTH_PROVIDER },
    },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  // A password the Backend API marks compromised makes the next session pending with reset-password
  // (no switch: the emulator always does). Personal accounts off: the spec's first test, someone
  // without an organization, chooses one after the reset; its second, a member, does not.
  withSessionTasksResetPassword: {
    instance: { organization_settings: { force_organization_selection: true } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  // Multi-factor required: a session of someone without a second factor is pending with setup-mfa.
  // Single-session: <SignIn/> sends a pending session to its task only there (withRedirectToSignInTask).
  withSessionTasksSetupMfa: {
    instance: { user_settings: { sign_up: { mfa: { required: true } } } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  // Client trust (Clerk's Device Trust): a password sign-in on a new browser waits for an emailed code.
  // Clerk's environment JSON has no key for it; the emulator's settings file takes auth_config.client_trust.
  withNeedsClientTrust: {
    instance: { auth_config: { client_trust: true } },
    development: true,
    appEnv: SIGN_IN_UP_URLS,
  },
  withEnterpriseSso: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["an enterprise SSO connection"] },
  withBilling: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["billing"] },
  withBillingJwtV2: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["billing"] },
  withAPIKeys: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["API keys"] },
  withProtectService: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["Clerk Protect"] },
  withWhatsappPhoneCode: { development: true, appEnv: SIGN_IN_UP_URLS, needs: ["WhatsApp phone codes"] },
  // The shared React variant of @clerk/ui (ui.shared.browser.js, which the spec swaps in): the emulator serves
  // it from the installed @clerk/ui as it serves ui.browser.js; the app names the variant as the preset does.
  withSharedUIVariant: { ...withEmailCodes, appEnv: { ...SIGN_IN_UP_URLS, CLERK_UI_VARIANT: "shared" } },
  withEmailCodesProxy: { ...withEmailCodes, needs: ["a server framework's own proxy (CLERK_PROXY_ENABLED)"] },
  withKeyless: { development: true, appEnv: {}, needs: ["keyless applications (Clerk's staging API)"] },
};

/** What the emulator needs for an env: its settings, and what it lacks (`needs`). */
export function envSettings(name) {
  const env = ENVS[name];
  if (!env)
    return {
      instance: {},
      development: true,
      flags: [],
      appEnv: SIGN_IN_UP_URLS,
      roles: [],
      needs: [`${name}'s settings`],
    };
  return {
    instance: env.instance ?? {},
    development: env.development,
    flags: env.flags ?? [],
    appEnv: env.appEnv,
    roles: env.roles ?? [],
    needs: env.needs ?? [],
  };
}
