import { lockoutRemainingSeconds, verificationAttemptsRemaining } from "../domain/account-restrictions";
import { mfaFlagsOf } from "../domain/mfa";
import type { EmailRecord, PhoneRecord, Store, UserRecord } from "../state/store";
import { userImageUrl } from "../domain/public-profile";
import { verificationJSON, type Api } from "./common";
import { membershipJSON } from "./organizations";
import { passkeyJSON, passkeysOf } from "./passkeys";

export function emailAddressJSON(email: EmailRecord) {
  return {
    object: "email_address",
    id: email.id,
    email_address: email.email,
    reserved: false,
    verification: verificationJSON(email.verified ? "verified" : "unverified", "email_code"),
    linked_to: [],
    matches_sso_connection: false,
    created_at: email.createdAt,
    updated_at: email.updatedAt,
  };
}

/**
 * A phone number, reserved for SMS codes as a second factor or not. `backupCodes`: the codes handed out
 * when reserving it turned two-factor on (Clerk returns them on that answer only).
 */
export function phoneNumberJSON(phone: PhoneRecord, backupCodes: string[] | null = null) {
  return {
    object: "phone_number",
    id: phone.id,
    phone_number: phone.phone,
    reserved_for_second_factor: Boolean(phone.reservedForSecondFactor),
    default_second_factor: Boolean(phone.defaultSecondFactor),
    reserved: false,
    // Verified by the Backend API's say-so: Clerk's `admin` verification, with no code behind it.
    verification:
      phone.verified && phone.verifiedBy === "admin"
        ? { object: "verification_admin", status: "verified", strategy: "admin", attempts: null, expire_at: null }
        : verificationJSON(phone.verified ? "verified" : "unverified", "phone_code"),
    linked_to: [],
    backup_codes: backupCodes,
    created_at: phone.createdAt,
    updated_at: phone.updatedAt,
  };
}

/**
 * A user. The Frontend API's carries the person's memberships and never their
 * private metadata; the Backend API's is the closed shape Clerk documents.
 */
export function userJSON(store: Store, user: UserRecord, api: Api) {
  const image = userImageUrl(store, user);
  const mfa = mfaFlagsOf(user);
  const common = {
    object: "user",
    id: user.id,
    external_id: user.externalId,
    username: user.username,
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: image,
    profile_image_url: image,
    has_image: Boolean(user.imageId),
    primary_email_address_id: user.emailId,
    primary_phone_number_id: user.phoneId,
    primary_web3_wallet_id: null,
    email_addresses: user.emails.map(emailAddressJSON),
    phone_numbers: user.phones.map((p) => phoneNumberJSON(p)),
    web3_wallets: [],
    external_accounts: [],
    saml_accounts: [],
    enterprise_accounts: [],
    passkeys: passkeysOf(store, user.id).map((p) => passkeyJSON(p, api)),
    password_enabled: Boolean(user.passwordHash),
    password_last_updated_at: user.passwordUpdatedAt,
    totp_enabled: mfa.totpEnabled,
    backup_code_enabled: mfa.backupCodeEnabled,
    two_factor_enabled: mfa.twoFactorEnabled,
    mfa_enabled_at: mfa.enabledAt,
    mfa_disabled_at: mfa.disabledAt,
    public_metadata: user.publicMetadata,
    unsafe_metadata: user.unsafeMetadata,
    banned: user.banned ?? false,
    locked: lockoutRemainingSeconds(user) !== null,
    lockout_expires_in_seconds: lockoutRemainingSeconds(user),
    verification_attempts_remaining: verificationAttemptsRemaining(user),
    last_sign_in_at: user.lastSignInAt,
    last_active_at: user.lastSignInAt,
    create_organization_enabled: true,
    delete_self_enabled: true,
    legal_accepted_at: user.legalAcceptedAt,
    locale: user.locale,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
  if (api === "fapi") {
    return {
      ...common,
      organization_memberships: store.membershipsOfUser(user.id).map((m) => membershipJSON(store, m, "fapi")),
    };
  }
  return {
    ...common,
    private_metadata: user.privateMetadata,
    create_organizations_limit: null,
    bypass_client_trust: user.bypassClientTrust ?? false,
  };
}
