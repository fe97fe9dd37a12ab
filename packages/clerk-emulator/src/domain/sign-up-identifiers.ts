import { addPhone, parsePhone, parseUsername, refuseTakenPhone, refuseTakenUsername } from "./identifiers";
import { ApiError } from "./errors";
import type { SignUpRecord, Store, UserRecord } from "../state/store";
import { refuseWrongCode, textCode } from "./verification-codes";

/**
 * A sign-up's optional username and phone number: checked as Clerk checks
 * them when given, the phone verified by a texted code (`phone_code`) before
 * the user is made, and both carried onto the new user.
 */
export function applySignUpIdentifiers(
  store: Store,
  signUp: SignUpRecord,
  given: { username: unknown; phoneNumber: unknown },
): void {
  if (given.username !== undefined && given.username !== null && given.username !== "") {
    const username = parseUsername(given.username);
    refuseTakenUsername(store, username);
    store.write(() => {
      signUp.username = username;
    });
  }
  if (given.phoneNumber !== undefined && given.phoneNumber !== null && given.phoneNumber !== "") {
    const phone = parsePhone(given.phoneNumber);
    if (phone !== signUp.phone) {
      refuseTakenPhone(store, phone);
      store.write(() => {
        signUp.phone = phone;
        signUp.phoneVerification = "none";
      });
    }
  }
}

/** `prepare_verification` with `phone_code`: the code is texted to the sign-up's number. */
export function preparePhoneVerification(store: Store, signUp: SignUpRecord): void {
  const phone = signUp.phone;
  if (!phone) throw new ApiError(422, "form_param_missing", "Enter your phone number.", "phone_number");
  if (signUp.phoneVerification === "verified") return;
  store.write(() => {
    signUp.phoneVerification = "unverified";
  });
  textCode(store, phone, null, null);
}

/** `attempt_verification` with `phone_code`. */
export function attemptPhoneVerification(store: Store, signUp: SignUpRecord, code: unknown): void {
  if (!signUp.phone || signUp.phoneVerification === "none" || !signUp.phoneVerification) {
    throw new ApiError(
      422,
      "verification_missing",
      "This verification has not been prepared: prepare phone_code first.",
      "strategy",
    );
  }
  refuseWrongCode(code);
  store.write(() => {
    signUp.phoneVerification = "verified";
  });
}

/** A number given at sign-up must be verified before the user is made. */
export const signUpPhoneReady = (signUp: SignUpRecord) => !signUp.phone || signUp.phoneVerification === "verified";

/** The new user's username and (verified, primary) phone number; taken since the sign-up began is Clerk's 422. */
export function carrySignUpIdentifiers(store: Store, signUp: SignUpRecord, user: UserRecord): void {
  store.write(() => {
    if (signUp.username) user.username = signUp.username;
    if (signUp.phone) addPhone(user, signUp.phone, "phone_code");
  });
}

/** Checked again when the user is about to be made: someone may have taken them since. */
export function refuseTakenSignUpIdentifiers(store: Store, signUp: SignUpRecord): void {
  if (signUp.username) refuseTakenUsername(store, signUp.username);
  if (signUp.phone) refuseTakenPhone(store, signUp.phone);
}
