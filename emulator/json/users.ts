import { lockoutRemainingSeconds, verificationAttemptsRemaining } from "../account-restrictions";
import type { EmailRecord, Store, UserRecord } from "../store";
import { imageUrl, verificationJSON, type Api } from "./common";
import { membershipJSON } from "./organizations";

export function fullName(user: UserRecord): string | null {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ").trim();
  return name || null;
}

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

/** The public face of a user, as memberships and sessions show it in the browser. */
export function publicUserDataJSON(store: Store, user: UserRecord) {
  const image = imageUrl(store, user.imageId);
  return {
    user_id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: image,
    profile_image_url: image,
    has_image: Boolean(user.imageId),
    identifier: user.email,
    username: null,
  };
}

/**
 * A user. The Frontend API's carries the person's memberships and never their
 * private metadata; the Backend API's is the closed shape Clerk documents.
 */
export function userJSON(store: Store, user: UserRecord, api: Api) {
  const image = imageUrl(store, user.imageId);
  const common = {
    object: "user",
    id: user.id,
    external_id: user.externalId,
    username: null,
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: image,
    profile_image_url: image,
    has_image: Boolean(user.imageId),
    primary_email_address_id: user.emailId,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    email_addresses: user.emails.map(emailAddressJSON),
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    saml_accounts: [],
    enterprise_accounts: [],
    passkeys: [],
    password_enabled: Boolean(user.passwordHash),
    password_last_updated_at: user.passwordUpdatedAt,
    totp_enabled: false,
    backup_code_enabled: false,
    two_factor_enabled: false,
    mfa_enabled_at: null,
    mfa_disabled_at: null,
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
  };
}
