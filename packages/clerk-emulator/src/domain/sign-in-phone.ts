import { ApiError } from "./errors";
import type { PhoneRecord, SignInRecord, Store, UserRecord } from "../state/store";
import { textCode } from "./verification-codes";

/**
 * Signing in with an SMS code (`phone_code`, a first factor only): the code
 * goes to the number asked for (`phone_number_id`), else the one the
 * identifier named, else the primary one; it is always the test code.
 */
function signInPhone(signIn: SignInRecord, user: UserRecord, wanted: string | null): PhoneRecord {
  const verified = user.phones.filter((p) => p.verified);
  const typed = signIn.identifier?.replace(/[\s().-]/g, "");
  const phone =
    (wanted !== null ? verified.find((p) => p.id === wanted) : undefined) ??
    verified.find((p) => p.phone === typed) ??
    verified.find((p) => p.id === user.phoneId) ??
    verified[0];
  if (!phone || (wanted !== null && phone.id !== wanted)) {
    throw new ApiError(422, "strategy_for_user_invalid", "That sign-in method is not available.", "strategy");
  }
  return phone;
}

/**
 * `phone_code` prepared, at the sign-in's creation or by `prepare_first_factor`, for the number
 * `phoneNumberId` names (or the identifier's, or the primary one): the code is texted.
 */
export function preparePhoneCode(
  store: Store,
  signIn: SignInRecord,
  user: UserRecord,
  phoneNumberId: string | null,
): void {
  const phone = signInPhone(signIn, user, phoneNumberId);
  store.write(() => {
    signIn.firstFactorStrategy = "phone_code";
    signIn.firstFactorStatus = "unverified";
  });
  textCode(store, phone.phone, phone.id, user.id);
}

/** `phone_code` attempted: Clerk's 422 for a code never sent (the code itself is checked as an email code is). */
export function refuseUnpreparedPhoneCode(signIn: SignInRecord): void {
  if (signIn.firstFactorStrategy !== "phone_code" || !signIn.userId) {
    throw new ApiError(
      422,
      "verification_missing",
      "This verification has not been prepared: prepare the phone_code first factor first.",
      "strategy",
    );
  }
}
