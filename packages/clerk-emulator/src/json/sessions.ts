import type { ClientRecord, SessionRecord, SignInRecord, SignInTokenRecord, SignUpRecord, Store } from "../state/store";
import { clientTrustFactors } from "../domain/client-trust";
import { factorVerificationAge, secondFactorsOf } from "../domain/mfa";
import { missingSignUpRequirements } from "../domain/sign-ups";
import { userImageUrl } from "../domain/public-profile";
import { isOAuthStrategy } from "../domain/social-connections";
import { emailLinkVerificationJSON, oauthVerificationJSON, verificationJSON } from "./common";
import { publicUserDataJSON } from "./public-user-data";
import { userJSON } from "./users";
import { PASSKEY_TIMEOUT_MS, passkeysOf } from "./passkeys";
import { sessionStatus, sessionTasks } from "../domain/session-tasks";

function sessionBase(store: Store, session: SessionRecord) {
  const tasks = sessionTasks(store, session);
  return {
    object: "session",
    id: session.id,
    status: sessionStatus(store, session),
    // Clerk's session tasks (Core 3): null when there are none.
    tasks: tasks.length > 0 ? tasks.map((key) => ({ key })) : null,
    expire_at: session.expireAt,
    abandon_at: session.expireAt,
    last_active_at: session.lastActiveAt,
    actor: session.actor ?? null,
  };
}

/** A session in the browser's client, with its user and its newest token. */
export function sessionJSON(store: Store, session: SessionRecord, lastActiveToken: string | null) {
  const user = store.user(session.userId);
  return {
    ...sessionBase(store, session),
    last_active_organization_id: session.lastActiveOrganizationId,
    last_active_token: lastActiveToken ? { object: "token", jwt: lastActiveToken } : null,
    factor_verification_age: factorVerificationAge(session),
    user: user ? userJSON(store, user, "fapi") : undefined,
    public_user_data: user ? publicUserDataJSON(store, user) : null,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}

function activityJSON(session: SessionRecord) {
  const a = session.activity;
  return {
    object: "session_activity",
    id: `sess_activity_${session.id.slice(5)}`,
    is_mobile: a?.isMobile ?? false,
    ...(a?.deviceType ? { device_type: a.deviceType } : {}),
    ...(a?.browserName ? { browser_name: a.browserName } : {}),
    ...(a?.browserVersion ? { browser_version: a.browserVersion } : {}),
    ...(a?.ipAddress ? { ip_address: a.ipAddress } : {}),
  };
}

/** An entry of the signed-in person's devices list (`/v1/me/sessions/active`). */
export function activeSessionJSON(store: Store, session: SessionRecord) {
  return { ...sessionBase(store, session), last_active_token: null, latest_activity: activityJSON(session) };
}

/** A session as the Backend API shows it: whose, on which client, from which device. */
export function backendSessionJSON(store: Store, session: SessionRecord) {
  return {
    ...sessionBase(store, session),
    user_id: session.userId,
    client_id: session.clientId,
    last_active_organization_id: session.lastActiveOrganizationId,
    latest_activity: activityJSON(session),
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}

/** A sign-in's passkey factor: its WebAuthn request options in `nonce` while it waits (clerk-js parses them). */
function passkeyVerificationJSON(signIn: SignInRecord) {
  return {
    object: "verification_passkey",
    status: signIn.firstFactorStatus ?? "unverified",
    strategy: "passkey",
    attempts: null,
    expire_at: Date.now() + PASSKEY_TIMEOUT_MS,
    ...(signIn.passkeyNonce ? { nonce: signIn.passkeyNonce } : {}),
  };
}

export function signInJSON(store: Store, signIn: SignInRecord) {
  const user = signIn.userId ? store.user(signIn.userId) : null;
  const email = user ? { safe_identifier: user.email, email_address_id: user.emailId, primary: true } : null;
  const factors = email
    ? [
        { strategy: "password" },
        { strategy: "email_code", ...email },
        ...(store.settings.instance.emailLinkSignIn ? [{ strategy: "email_link", ...email }] : []),
        // What <SignIn/>'s "Forgot password?" starts (the code is emailed, as a sign-in code is).
        { strategy: "reset_password_email_code", ...email },
        ...(store.settings.passkeys && user && passkeysOf(store, user.id).length > 0 ? [{ strategy: "passkey" }] : []),
        ...(user?.phones ?? [])
          .filter((p) => p.verified)
          .map((p) => ({
            strategy: "phone_code",
            safe_identifier: p.phone,
            phone_number_id: p.id,
            primary: p.id === user?.phoneId,
          })),
      ]
    : [];
  // Listed once the first factor is done: clerk-js reads them when the status is needs_second_factor, or
  // the emailed code of a client-trust step (domain/client-trust.ts) at needs_client_trust.
  const clientTrustStep = signIn.status === "needs_client_trust" || signIn.secondFactor?.strategy === "email_code";
  const secondFactors = !user
    ? []
    : clientTrustStep
      ? clientTrustFactors(user)
      : signIn.status === "needs_second_factor" || signIn.secondFactor
        ? secondFactorsOf(store, user)
        : [];
  const image = user ? userImageUrl(store, user) : "";
  return {
    object: "sign_in_attempt",
    id: signIn.id,
    status: signIn.status,
    identifier: signIn.identifier,
    supported_identifiers: ["email_address", "phone_number", "username"],
    // Clerk offers a password only to a user who has one (a user made without one signs in by code).
    supported_first_factors: user?.passwordHash ? factors : factors.filter((f) => f.strategy !== "password"),
    supported_second_factors: secondFactors,
    first_factor_verification:
      signIn.firstFactorStrategy === "passkey"
        ? passkeyVerificationJSON(signIn)
        : signIn.firstFactorStrategy === "email_link"
          ? emailLinkVerificationJSON(store, signIn.id, signIn.firstFactorStatus ?? "unverified")
          : isOAuthStrategy(signIn.firstFactorStrategy)
            ? oauthVerificationJSON(
                signIn.firstFactorStatus ?? "unverified",
                signIn.firstFactorStrategy,
                signIn.externalVerificationRedirectUrl ?? null,
              )
            : signIn.firstFactorStrategy
              ? verificationJSON(signIn.firstFactorStatus ?? "unverified", signIn.firstFactorStrategy)
              : null,
    second_factor_verification: signIn.secondFactor
      ? verificationJSON(signIn.secondFactor.status, signIn.secondFactor.strategy)
      : null,
    user_data: user
      ? {
          first_name: user.firstName,
          last_name: user.lastName,
          image_url: image,
          profile_image_url: image,
          has_image: Boolean(user.imageId),
        }
      : null,
    created_session_id: signIn.createdSessionId,
    abandon_at: signIn.createdAt + 24 * 3_600_000,
    // Shown where the instance has client trust on (Clerk's field is nullable).
    client_trust_state: store.settings.instance.clientTrust ? (signIn.clientTrustState ?? "pending") : null,
  };
}

export function signUpJSON(signUp: SignUpRecord, store: Store) {
  const missing: string[] = [];
  if (!signUp.email) missing.push("email_address");
  if (!signUp.passwordHash) missing.push("password");
  // The instance's own requirements (the legal terms, when `legal_consent_enabled`).
  const requirements = store.settings.instance.legalConsentEnabled ? ["legal_accepted"] : [];
  missing.push(...missingSignUpRequirements(store, signUp));
  const unverified = signUp.email && signUp.emailVerification !== "verified" ? ["email_address"] : [];
  const byLink = !signUp.ticket && signUp.emailVerificationStrategy === "email_link";
  if (signUp.phone && signUp.phoneVerification !== "verified") unverified.push("phone_number");
  const phoneVerification =
    !signUp.phone || !signUp.phoneVerification || signUp.phoneVerification === "none"
      ? null
      : {
          ...verificationJSON(signUp.phoneVerification, "phone_code"),
          next_action: signUp.phoneVerification === "verified" ? "" : "needs_attempt",
          supported_strategies: ["phone_code"],
        };
  const emailVerification =
    signUp.emailVerification === "none"
      ? null
      : {
          ...(byLink
            ? emailLinkVerificationJSON(store, signUp.id, signUp.emailVerification)
            : verificationJSON(signUp.emailVerification, signUp.ticket ? "ticket" : "email_code")),
          next_action: signUp.emailVerification === "verified" ? "" : "needs_attempt",
          supported_strategies: store.settings.instance.emailLinkVerification
            ? ["email_code", "email_link"]
            : ["email_code"],
        };
  return {
    object: "sign_up_attempt",
    id: signUp.id,
    status: signUp.status,
    required_fields: ["email_address", "password", ...requirements],
    optional_fields: ["first_name", "last_name", "username", "phone_number"],
    missing_fields: missing,
    unverified_fields: unverified,
    verifications: {
      email_address: emailVerification,
      phone_number: phoneVerification,
      web3_wallet: null,
      external_account: signUp.externalAccount
        ? oauthVerificationJSON("unverified", signUp.externalAccount.strategy, signUp.externalAccount.redirectUrl)
        : null,
    },
    username: signUp.username ?? null,
    email_address: signUp.email,
    phone_number: signUp.phone ?? null,
    web3_wallet: null,
    first_name: signUp.firstName,
    last_name: signUp.lastName,
    password_enabled: Boolean(signUp.passwordHash),
    unsafe_metadata: signUp.unsafeMetadata ?? {},
    public_metadata: {},
    custom_action: signUp.customAction ?? false,
    external_id: signUp.externalId ?? null,
    created_session_id: signUp.createdSessionId,
    created_user_id: signUp.createdUserId,
    abandon_at: signUp.createdAt + 24 * 3_600_000,
    legal_accepted_at: signUp.legalAcceptedAt ?? null,
  };
}

/** `captchaBypass`: the request carried a testing token (`__clerk_testing_token`), as Clerk's test helpers send. */
export function clientJSON(
  store: Store,
  client: ClientRecord,
  tokenFor: (s: SessionRecord) => string | null,
  captchaBypass = false,
) {
  const sessions = store.activeSessions(client);
  return {
    object: "client",
    id: client.id,
    sessions: sessions.map((s) => sessionJSON(store, s, tokenFor(s))),
    sign_in: client.signIn ? signInJSON(store, client.signIn) : null,
    sign_up: client.signUp ? signUpJSON(client.signUp, store) : null,
    last_active_session_id: sessions.some((s) => s.id === client.lastActiveSessionId)
      ? client.lastActiveSessionId
      : null,
    last_authentication_strategy: client.lastAuthenticationStrategy ?? null,
    cookie_expires_at: null,
    captcha_bypass: captchaBypass,
    created_at: client.createdAt,
    updated_at: client.updatedAt,
  };
}

export function signInTokenJSON(record: SignInTokenRecord, url: string) {
  return {
    object: "sign_in_token",
    id: record.id,
    user_id: record.userId,
    token: record.ticket,
    status: record.status,
    url,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
