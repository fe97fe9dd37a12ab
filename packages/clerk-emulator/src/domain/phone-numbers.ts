import { ApiError } from "./errors";
import { addPhone, refuseTakenPhone, removePhone, verifyPhone } from "./identifiers";
import type { CodeVerificationRecord, PhoneRecord, Store, UserRecord, Verifier } from "../state/store";
import { attemptCodeVerification, startCodeVerification } from "./code-verifications";
import { textCode } from "./verification-codes";

/**
 * A user's phone numbers as the person (`/v1/me/phone_numbers`) and the Backend API change them: a number
 * belongs to one user, and only a verified one can be primary. The rules of one number are identifiers.ts'.
 */

/** `primary: true` is for a verified number only: the Backend API's 422, checked before anything changes. */
function refuseUnverifiedPrimary(primary: boolean, verified: boolean): void {
  if (primary && !verified) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "primary",
      "Only a verified phone number can be primary.",
    );
  }
}

/** A new number on the user's profile (taken ones refused), verified (and how) or not, made primary if asked. */
export function addPhoneNumber(
  store: Store,
  user: UserRecord,
  number: string,
  { verifiedBy = null, primary = false }: { verifiedBy?: Verifier | null; primary?: boolean } = {},
): PhoneRecord {
  refuseTakenPhone(store, number);
  refuseUnverifiedPrimary(primary, verifiedBy !== null);
  return store.write(() => {
    const phone = addPhone(user, number, verifiedBy);
    if (primary) user.phoneId = phone.id;
    return phone;
  });
}

/**
 * The Backend API's update: `verified: true` verifies the number (`admin`), `verified: false` takes the
 * verification away (and with it the primary place), `primary: true` makes it primary.
 */
export function updatePhoneNumber(
  store: Store,
  user: UserRecord,
  phone: PhoneRecord,
  changes: { verified?: boolean; primary: boolean },
): PhoneRecord {
  const unverify = changes.verified === false;
  refuseUnverifiedPrimary(changes.primary, unverify ? false : phone.verified || changes.verified === true);
  return store.write(() => {
    if (changes.verified === true && !phone.verified) verifyPhone(user, phone, "admin");
    if (unverify && phone.verified) {
      phone.verified = false;
      delete phone.verifiedBy;
      if (user.phoneId === phone.id) user.phoneId = user.phones.find((p) => p.verified)?.id ?? null;
    }
    if (changes.primary) user.phoneId = phone.id;
    phone.updatedAt = user.updatedAt = Date.now();
    return phone;
  });
}

/** Marks a number verified (by its texted code, or by the Backend API); with no primary number yet, it becomes it. */
export function verifyPhoneNumber(store: Store, user: UserRecord, phone: PhoneRecord, by: Verifier): void {
  store.write(() => verifyPhone(user, phone, by));
}

/** The Backend API's `prepare_verification`: a verification waiting for the texted code (`sms.created`). */
export function preparePhoneVerification(store: Store, user: UserRecord, phone: PhoneRecord): CodeVerificationRecord {
  const verification = startCodeVerification(store, "phoneVerifications", phone.id);
  textCode(store, phone.phone, phone.id, user.id);
  return verification;
}

/** The Backend API's `attempt_verification`: the right code verifies the number (`phone_code`), if not already. */
export function attemptPhoneVerification(
  store: Store,
  user: UserRecord,
  phone: PhoneRecord,
  verificationId: string,
  code: string,
): CodeVerificationRecord {
  return attemptCodeVerification(store, "phoneVerifications", phone.id, verificationId, code, () => {
    if (!phone.verified) verifyPhoneNumber(store, user, phone, "phone_code");
  });
}

/** Takes a number off the user's profile; the primary place passes to another verified number, if any. */
export function removePhoneNumber(store: Store, user: UserRecord, phone: PhoneRecord): void {
  store.write(() => removePhone(user, phone));
}

/**
 * All the user's numbers replaced by `number` (taken by someone else: refused), primary if verified: an
 * unverified number cannot be primary, so the user then has none until it is verified.
 */
export function replacePhoneNumbers(store: Store, user: UserRecord, number: string, verified: boolean): PhoneRecord {
  refuseTakenPhone(store, number, user);
  return store.write(() => {
    user.phones = [];
    user.phoneId = null;
    return addPhone(user, number, verified ? "admin" : null);
  });
}
