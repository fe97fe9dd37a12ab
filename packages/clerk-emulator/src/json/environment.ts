import { defaultInstance } from "../state/instance";
import type { InstanceRecord, RestrictionsRecord } from "../state/records";
import type { DeepReadonly } from "../state/store";
import type { Settings } from "../settings";
import { noRestrictions } from "../state/seed";

/**
 * What `GET /v1/environment` returns: one production instance with email +
 * password, email code, email link or SMS code sign-in, email-code
 * verification at sign-up (links too when the instance says so), optional
 * names, optional usernames and phone numbers as identifiers, and
 * organizations on. The shape is Clerk's Frontend API schema
 * `Client.Environment` (fapi-2025-11-10.yml), which forbids unknown fields:
 * everything the emulator has no concept of is sent as off or empty.
 */
import { SECOND_FACTOR_STRATEGIES } from "../domain/mfa";
import { socialConnectionsJSON } from "../domain/social-connections";

export const SIGN_IN_URL = "/sign-in";
export const SIGN_UP_URL = "/sign-up";

/** A `UserSettings.Attribute`, off unless `extra` says otherwise. */
function attribute(enabled: boolean, extra: Record<string, unknown> = {}) {
  return {
    enabled,
    required: false,
    used_for_first_factor: false,
    first_factors: [],
    used_for_second_factor: false,
    second_factors: [],
    verifications: [],
    verify_at_sign_up: false,
    immutable: false,
    ...extra,
  };
}

const off = { enabled: false };

export function environmentJSON(
  settings: Pick<Settings, "applicationName" | "organizationSlugs" | "passkeys" | "instance"> &
    Partial<Pick<Settings, "development">>,
  instance: DeepReadonly<InstanceRecord> = defaultInstance(),
  restrictions: DeepReadonly<RestrictionsRecord> = noRestrictions(),
) {
  const { settings: own, organizationSettings: orgs } = instance;
  // Email links sign in always; verifying an address by link is an instance setting (off: codes only),
  // because clerk-js's <SignUp/> and <UserProfile/> use links instead of codes once it is listed.
  const emailVerifications = settings.instance.emailLinkVerification ? ["email_code", "email_link"] : ["email_code"];
  // Signing in by an emailed link is a switch of its own (`first_factors`), on unless the instance says otherwise.
  const emailFirstFactors = settings.instance.emailLinkSignIn ? ["email_code", "email_link"] : ["email_code"];
  return {
    auth_config: {
      object: "auth_config",
      id: "aac_local",
      first_name: "on",
      last_name: "on",
      email_address: "required",
      phone_number: "on",
      username: "on",
      password: "required",
      identification_requirements: [["email_address"]],
      identification_strategies: ["email_address", "phone_number", "username"],
      // `ticket` is how invitation links sign in and sign up.
      // `reset_password_email_code`: <SignIn/>'s "Forgot password?".
      first_factors: [
        ...emailFirstFactors,
        "phone_code",
        "password",
        "ticket",
        "reset_password_email_code",
        ...(settings.passkeys ? ["passkey"] : []),
      ],
      second_factors: SECOND_FACTOR_STRATEGIES,
      email_address_verification_strategies: emailVerifications,
      // The dashboard's switches (settings' `instance`, domain/dashboard-settings.ts).
      single_session_mode: settings.instance.singleSessionMode,
      enhanced_email_deliverability: false,
      test_mode: own.testMode,
      // A development instance here syncs sessions through the URL (its dev browser) only, as Clerk's do by default.
      url_based_session_syncing: settings.development || own.urlBasedSessionSyncing,
      claimed_at: null,
      reverification: settings.instance.reverification,
      native_settings: {
        object: "native_settings",
        api_enabled: false,
        trusted_device_sign_in_enabled: false,
        trusted_device_enrollment_prompt_after_sign_in_enabled: false,
        trusted_device_enrollment_prompt_after_sign_up_enabled: false,
      },
    },
    display_config: {
      object: "display_config",
      id: "display_config_local",
      instance_environment_type: settings.development ? "development" : "production",
      application_name: settings.applicationName,
      theme: {
        buttons: { font_color: "#ffffff", font_family: "inherit", font_weight: "600" },
        general: {
          color: "#3e63dd",
          padding: "1em",
          box_shadow: "0 2px 8px rgba(0, 0, 0, 0.2)",
          font_color: "#151515",
          font_family: "inherit",
          border_radius: "0.5em",
          background_color: "#ffffff",
          label_font_weight: "600",
        },
        accounts: { background_color: "#ffffff" },
      },
      preferred_sign_in_strategy: own.preferredSignInStrategy === "otp" ? "otp" : "password",
      logo_image_url: "",
      favicon_image_url: "",
      home_url: "/",
      sign_in_url: SIGN_IN_URL,
      sign_up_url: SIGN_UP_URL,
      user_profile_url: "/user",
      waitlist_url: "/",
      // No OAuth applications, so no consent screen.
      oauth_consent_url: "",
      after_sign_in_url: "/",
      after_sign_up_url: "/",
      after_sign_out_one_url: "/",
      after_sign_out_all_url: "/",
      after_switch_session_url: "/",
      after_join_waitlist_url: "/",
      organization_profile_url: "/orgs",
      create_organization_url: "/orgs/new",
      after_leave_organization_url: "/orgs",
      after_create_organization_url: "/orgs",
      logo_link_url: "/",
      support_email: own.supportEmail,
      branded: false,
      experimental_force_oauth_first: false,
      clerk_js_version: own.clerkJsVersion ?? "5",
      show_devmode_warning: false,
      google_one_tap_client_id: null,
      help_url: null,
      privacy_policy_url: null,
      terms_url: null,
      logo_url: null,
      favicon_url: null,
      logo_image: null,
      favicon_image: null,
      captcha_public_key: null,
      captcha_widget_type: null,
      captcha_public_key_invisible: null,
      captcha_provider: null,
      captcha_oauth_bypass: [],
      captcha_heartbeat: false,
    },
    user_settings: {
      attributes: {
        email_address: attribute(true, {
          required: true,
          used_for_first_factor: true,
          first_factors: emailFirstFactors,
          verifications: emailVerifications,
          verify_at_sign_up: settings.instance.emailVerifyAtSignUp,
        }),
        // Optional identifiers: a verified phone number signs in with an SMS code (never a second factor here).
        phone_number: attribute(true, {
          used_for_first_factor: true,
          first_factors: ["phone_code"],
          used_for_second_factor: true,
          second_factors: ["phone_code"],
          verifications: ["phone_code"],
          verify_at_sign_up: true,
        }),
        username: attribute(true, { used_for_first_factor: true }),
        web3_wallet: attribute(false),
        first_name: attribute(true),
        last_name: attribute(true),
        password: attribute(true, { required: true }),
        // Second factors (domain/mfa.ts): what <UserProfile/>'s Security page offers to set up.
        authenticator_app: attribute(true, { used_for_second_factor: true, second_factors: ["totp"] }),
        // Invitation tickets work, but a ticket is not an identifier to type in.
        ticket: attribute(true),
        backup_code: attribute(true, { used_for_second_factor: true, second_factors: ["backup_code"] }),
        // Passkeys sign in on their own (a first factor), registered in the profile.
        passkey: settings.passkeys
          ? attribute(true, { used_for_first_factor: true, first_factors: ["passkey"], verifications: ["passkey"] })
          : attribute(false),
      },
      // The dashboard's social connections (domain/social-connections.ts): one button each in <SignIn/>.
      social: socialConnectionsJSON(settings.instance.socialConnections),
      saml: off,
      enterprise_sso: off,
      sign_in: { second_factor: { required: false } },
      sign_up: {
        captcha_enabled: false,
        // The schema wants a widget type even with captcha off.
        captcha_widget_type: "smart",
        custom_action_required: false,
        progressive: true,
        mode: settings.instance.signUpMode,
        legal_consent_enabled: settings.instance.legalConsentEnabled,
        // Multi-factor required: sessions of people without a second factor have the setup-mfa task.
        mfa: { required: settings.instance.mfaRequired },
      },
      restrictions: {
        allowlist: { enabled: restrictions.allowlist },
        blocklist: { enabled: restrictions.blocklist },
        allowlist_blocklist_disabled_on_sign_in: { enabled: restrictions.allowlistBlocklistDisabledOnSignIn },
        block_email_subaddresses: { enabled: restrictions.blockEmailSubaddresses },
        block_disposable_email_domains: { enabled: restrictions.blockDisposableEmailDomains },
      },
      password_settings: {
        disable_hibp: !own.hibp,
        disable_password_reverification: false,
        min_length: 8,
        max_length: 72,
        require_special_char: false,
        require_numbers: false,
        require_uppercase: false,
        require_lowercase: false,
        show_zxcvbn: false,
        min_zxcvbn_strength: 0,
        enforce_hibp_on_sign_in: false,
        allowed_special_characters: "",
      },
      username_settings: {
        min_length: 4,
        max_length: 64,
        allow_extended_special_characters: false,
        allow_numeric_usernames: false,
      },
      actions: { delete_self: true, create_organization: true, create_organizations_limit: null },
      // The emulator has no lockout, PII or enumeration protection.
      attack_protection: {
        user_lockout: { enabled: false, max_attempts: 0, duration_in_minutes: 0 },
        pii: off,
        email_link: { require_same_client: false },
        enumeration_protection: off,
      },
      passkey_settings: {
        allow_autofill: false,
        show_sign_in_button: Boolean(settings.passkeys),
        satisfies_second_factor: false,
      },
    },
    // As `PATCH /v1/instance/organization_settings` sets them (backend/instance.ts).
    organization_settings: {
      enabled: orgs.enabled,
      // 0: no limit on members per organization.
      max_allowed_memberships: orgs.maxAllowedMemberships,
      // Personal accounts off: sessions without an organization are pending (domain/session-tasks.ts).
      force_organization_selection: settings.instance.forceOrganizationSelection,
      actions: { admin_delete: orgs.adminDeleteEnabled },
      domains: {
        enabled: orgs.domainsEnabled,
        // Manual invitation is always there; the automatic ones as the instance allows them.
        enrollment_modes: orgs.domainsEnabled ? ["manual_invitation", ...orgs.domainsEnrollmentModes] : [],
        default_role: orgs.domainsDefaultRole,
      },
      slug: { disabled: !settings.organizationSlugs },
      creator_role: orgs.creatorRole,
    },
    commerce_settings: {
      billing: {
        stripe_publishable_key: null,
        user: { enabled: false, has_paid_plans: false },
        organization: { enabled: false, has_paid_plans: false },
      },
    },
    api_keys_settings: { enabled: false, user_api_keys_enabled: false, orgs_api_keys_enabled: false },
    protect_config: { loaders: [] },
    client_debug_mode: false,
    partitioned_cookies: false,
    maintenance_mode: false,
  };
}
