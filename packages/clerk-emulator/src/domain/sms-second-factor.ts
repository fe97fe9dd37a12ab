import { ApiError } from "./errors";
import {
  mfaFlagsOf,
  mfaSecretsOf,
  replaceBackupCodes,
  secondFactorPhonesOf,
  syncMfaFlags,
  twoFactorEnabled,
} from "./mfa";
import type { PhoneRecord, Store, UserRecord } from "../state/store";

/**
 * SMS codes as a second factor: a verified phone number reserved for them
 * (`reserved_for_second_factor`), one of the reserved numbers the default a
 * sign-in texts (`default_second_factor`). mfa.ts checks and sends the codes;
 * this module changes which numbers are reserved.
 */

/** The changes `PATCH …/phone_numbers/:id` and `POST /v1/phone_numbers` ask for; absent: unchanged. */
export type SecondFactorChanges = { reserved?: boolean; isDefault?: boolean };

/**
 * Clerk's rules, checked before anything changes: only a verified number can
 * be reserved ("The phone number must also be verified", Clerk's Backend API
 * description), and only a reserved one can be the default.
 */
export function refuseSecondFactorChanges(
  phone: Pick<PhoneRecord, "verified" | "reservedForSecondFactor">,
  changes: SecondFactorChanges,
): void {
  if (changes.reserved === true && !phone.verified) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "reserved_for_second_factor",
      "Only a verified phone number can be reserved for second factor.",
    );
  }
  const reserved = changes.reserved ?? Boolean(phone.reservedForSecondFactor);
  if (changes.isDefault === true && !reserved) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "default_second_factor",
      "Only a phone number reserved for second factor can be the default one.",
    );
  }
}

/**
 * Reserves a number for SMS codes (or takes it back), or makes it the default.
 * `handOutBackupCodes`: as <UserProfile/>'s turning SMS codes on does, a person
 * with no backup codes gets ten, returned here once (the phone number's
 * `backup_codes`), as Clerk hands them out with a new TOTP.
 */
export function changeSecondFactorPhone(
  store: Store,
  user: UserRecord,
  phone: PhoneRecord,
  changes: SecondFactorChanges,
  { handOutBackupCodes = false } = {},
): { backupCodes: string[] | null } {
  refuseSecondFactorChanges(phone, changes);
  return store.write(() => {
    const hadBackupCodes = Boolean(mfaSecretsOf(store, user.id).backupCodes);
    if (changes.reserved !== undefined) phone.reservedForSecondFactor = changes.reserved;
    if (!phone.reservedForSecondFactor) phone.defaultSecondFactor = false;
    if (changes.isDefault === true) for (const p of user.phones) p.defaultSecondFactor = p === phone;
    if (changes.isDefault === false) phone.defaultSecondFactor = false;
    phone.updatedAt = user.updatedAt = Date.now();
    settleSecondFactorPhones(store, user);
    const handOut = handOutBackupCodes && changes.reserved === true && !hadBackupCodes;
    return { backupCodes: handOut ? replaceBackupCodes(store, user).codes : null };
  });
}

/**
 * After any change to the user's numbers (one reserved, removed, no longer
 * verified): a reserved number is the default if none is (Clerk makes the
 * first one reserved the default), backup codes go when no two-factor method is
 * left (they would back up nothing, as when TOTP is removed), and the user's
 * flags (`two_factor_enabled`) follow.
 */
export function settleSecondFactorPhones(store: Store, user: UserRecord): void {
  store.write(() => {
    for (const phone of user.phones) {
      if (!phone.verified && phone.reservedForSecondFactor) {
        phone.reservedForSecondFactor = false;
        phone.defaultSecondFactor = false;
      }
    }
    const phones = secondFactorPhonesOf(user);
    if (phones.length > 0 && !phones.some((p) => p.defaultSecondFactor)) phones[0]!.defaultSecondFactor = true;
    // Only when this change turned two-factor off: backup codes set by the Backend API alone stay.
    if (mfaFlagsOf(user).twoFactorEnabled && !twoFactorEnabled(store, user)) {
      mfaSecretsOf(store, user.id).backupCodes = null;
    }
    syncMfaFlags(store, user);
  });
}
