import type { Request } from "express";
import { addPhone, parsePhone, parseUsername, refuseTakenPhone, refuseTakenUsername } from "../domain/identifiers";
import { ApiError } from "../domain/errors";
import type { SignUpRecord, Store, UserRecord } from "../state/store";
import { refuseWrongCode, textCode } from "../domain/verification-codes";

/**
 * A sign-up's optional username and phone number: checked as Clerk checks
 * them when given, the phone verified by a texted code (`phone_code`) before
 * the user is made, and both carried onto the new user.
 */
export function applySignUpIdentifiers(store: Store, signUp: SignUpRecord, body: Record<string, unknown>): void {
  if (body.username !== undefined && body.username !== null && body.username !== "") {
    const username = parseUsername(body.username);
    refuseTakenUsername(store, username);
    signUp.username = username;
  }
  if (body.phone_number !== undefined && body.phone_number !== null && body.phone_number !== "") {
    const phone = parsePhone(body.phone_number);
    if (phone !== signUp.phone) {
      refuseTakenPhone(store, phone);
      signUp.phone = phone;
      signUp.phoneVerification = "none";
    }
  }
}

/** `prepare_verification` with `phone_code`: the code is texted to the sign-up's number. */
export function preparePhoneVerification(store: Store, signUp: SignUpRecord): void {
  if (!signUp.phone) throw new ApiError(422, "form_param_missing", "Enter your phone number.", "phone_number");
  if (signUp.phoneVerification === "verified") return;
  signUp.phoneVerification = "unverified";
  textCode(store, signUp.phone, null, null);
}

/** `attempt_verification` with `phone_code`. */
export function attemptPhoneVerification(req: Request, signUp: SignUpRecord): void {
  if (!signUp.phone || signUp.phoneVerification === "none" || !signUp.phoneVerification) {
    throw new ApiError(
      422,
      "verification_missing",
      "This verification has not been prepared: prepare phone_code first.",
      "strategy",
    );
  }
  refuseWrongCode(req.body?.code);
  signUp.phoneVerification = "verified";
}

/** A number given at sign-up must be verified before the user is made. */
export const signUpPhoneReady = (signUp: SignUpRecord) => !signUp.phone || signUp.phoneVerification === "verified";

/** The new user's username and (verified, primary) phone number; taken since the sign-up began is Clerk's 422. */
export function carrySignUpIdentifiers(signUp: SignUpRecord, user: UserRecord): void {
  if (signUp.username) user.username = signUp.username;
  if (signUp.phone) addPhone(user, signUp.phone, "phone_code");
}

/** Checked again when the user is about to be made: someone may have taken them since. */
export function refuseTakenSignUpIdentifiers(store: Store, signUp: SignUpRecord): void {
  if (signUp.username) refuseTakenUsername(store, signUp.username);
  if (signUp.phone) refuseTakenPhone(store, signUp.phone);
}
