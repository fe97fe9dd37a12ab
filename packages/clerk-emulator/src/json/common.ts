import type { Store } from "../state/store";

/** Which of Clerk's APIs an object is for: the browser's (Frontend) never carries private metadata. */
export type Api = "fapi" | "bapi";

/** The second factors' verifications, as Clerk's spec names them (`Stubs.Verification.TOTP`, `.BackupCode`). */
const SECOND_FACTOR_OBJECTS: Record<string, string> = {
  totp: "verification_totp",
  backup_code: "verification_backup_code",
};

/**
 * A verification, typed as Clerk types them: `verification_otp` for codes,
 * `verification_ticket` for invitation links, `verification_password`.
 */
export function verificationJSON(status: string, strategy: string, extra: Record<string, unknown> = {}) {
  const object =
    strategy === "ticket"
      ? "verification_ticket"
      : strategy === "email_link"
        ? "verification_email_link"
        : strategy === "password"
          ? "verification_password"
          : (SECOND_FACTOR_OBJECTS[strategy] ?? "verification_otp");
  return {
    object,
    status,
    strategy,
    attempts: status === "verified" ? 1 : 0,
    expire_at: Date.now() + 10 * 60_000,
    ...extra,
  };
}

/** An OAuth verification (`verification_oauth`): unverified while the browser is at the provider's authorize URL. */
export function oauthVerificationJSON(status: string, strategy: string, redirectUrl: string | null) {
  return {
    object: "verification_oauth",
    status,
    strategy,
    external_verification_redirect_url: status === "unverified" ? redirectUrl : null,
    error: null,
    attempts: null,
    expire_at: Date.now() + 10 * 60_000,
  };
}

export function deletedJSON(object: string, id: string, extra: { slug?: string } = {}) {
  return { object, id, ...extra, deleted: true };
}

/**
 * An emailed link's verification (`verification_email_link`): its `expire_at`
 * is the newest link's for that sign-in, sign-up or address, and a link nobody
 * opened in time reads `expired` (what clerk-js's email link flows poll for).
 */
export function emailLinkVerificationJSON(store: Store, attemptId: string, status: string) {
  const link = store.state.emailLinks.filter((l) => l.attemptId === attemptId).at(-1);
  const expireAt = link?.expiresAt ?? Date.now();
  const lapsed = status === "unverified" && expireAt <= Date.now();
  return {
    object: "verification_email_link",
    status: lapsed ? "expired" : status,
    strategy: "email_link",
    attempts: null,
    expire_at: expireAt,
  };
}
