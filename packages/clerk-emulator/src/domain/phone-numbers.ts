import { ApiError } from "./errors";
import { addPhone, refuseTakenPhone, removePhone, verifyPhone } from "./identifiers";
import type { CodeVerificationRecord, PhoneRecord, Store, UserRecord, Verifier } from "../state/store";
import { attemptCodeVerification, startCodeVerification } from "./code-verifications";
import { textCode } from "./verification-codes";
import { refuseSecondFactorChanges, settleSecondFactorPhones } from "./sms-second-factor";

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

/**
 * A new number on the user's profile (taken ones refused), verified (and how) or not, made primary if asked,
 * reserved for SMS codes as a second factor if asked (a verified one only).
 */
export function addPhoneNumber(
  store: Store,
  user: UserRecord,
  number: string,
  {
    verifiedBy = null,
    primary = false,
    reserved = false,
  }: { verifiedBy?: Verifier | null; primary?: boolean; reserved?: boolean } = {},
): PhoneRecord {
  refuseTakenPhone(store, number);
  refuseUnverifiedPrimary(primary, verifiedBy !== null);
  refuseSecondFactorChanges({ verified: verifiedBy !== null }, { reserved });
  return store.write(() => {
    const phone = addPhone(user, number, verifiedBy);
    if (primary) user.phoneId = phone.id;
    if (reserved) {
      phone.reservedForSecondFactor = true;
      settleSecondFactorPhones(store, user);
    }
    return phone;
  });
}

/**
 * The Backend API's update: `verified: true` verifies the number (`admin`), `verified: false` takes the
 * verification away (and with it the primary place and any second factor), `primary: true` makes it primary,
 * `reserved` reserves it for SMS codes as a second factor or takes it back.
 */
export function updatePhoneNumber(
  store: Store,
  user: UserRecord,
  phone: PhoneRecord,
  changes: { verified?: boolean; primary: boolean; reserved?: boolean },
): PhoneRecord {
  const unverify = changes.verified === false;
  const verifiedAfter = unverify ? false : phone.verified || changes.verified === true;
  refuseUnverifiedPrimary(changes.primary, verifiedAfter);
  refuseSecondFactorChanges({ verified: verifiedAfter }, { reserved: changes.reserved });
  return store.write(() => {
    if (changes.verified === true && !phone.verified) verifyPhone(user, phone, "admin");
    if (unverify && phone.verified) {
      phone.verified = false;
      delete phone.verifiedBy;
      if (user.phoneId === phone.id) user.phoneId = user.phones.find((p) => p.verified)?.id ?? null;
    }
    if (changes.primary) user.phoneId = phone.id;
    if (changes.reserved !== undefined) phone.reservedForSecondFactor = changes.reserved;
    if (!phone.reservedForSecondFactor) phone.defaultSecondFactor = false;
    phone.updatedAt = user.updatedAt = Date.now();
    settleSecondFactorPhones(store, user);
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
  store.write(() => {
    removePhone(user, phone);
    settleSecondFactorPhones(store, user);
  });
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
    const phone = addPhone(user, number, verified ? "admin" : null);
    settleSecondFactorPhones(store, user);
    return phone;
  });
}
