import { ApiError } from "./errors";
import type { Store } from "../state/store";
import { isTestPhone } from "./identifiers";
import { verificationCodeEmail, verificationCodeSms } from "./messages";

/**
 * The one code Clerk's test instances send and accept, by email and by text:
 * both APIs check it here. An app's tests read it from `email.created` and
 * `sms.created`, or use it directly.
 */
export const TEST_EMAIL_CODE = "424242";

/**
 * The code Clerk texts (always the test code, as for emails): an app's tests
 * read it from `sms.created`. Clerk's test numbers, +1 (XXX) 555-0100 to
 * 0199, are never texted: they take the test code without a message.
 */
export function textCode(store: Store, phone: string, phoneNumberId: string | null, userId: string | null): void {
  if (isTestPhone(phone)) return;
  store.send(verificationCodeSms(store, { phoneNumber: phone, phoneNumberId, userId }, TEST_EMAIL_CODE));
}

/**
 * Emails the code to an address (Clerk's `verification_code` email), naming the browser that asked
 * (`userAgent`); `emailAddressId` and `userId` are null for an address that is no one's yet (a sign-up's).
 */
export function emailCode(
  store: Store,
  userAgent: string | null,
  to: { address: string; emailAddressId: string | null; userId: string | null },
): void {
  store.send(verificationCodeEmail(store, userAgent, to, TEST_EMAIL_CODE));
}

/** Whether a code someone typed (an email's or a text's) is the one sent: every check of a code is this one. */
export function isSentCode(code: unknown): boolean {
  return code === TEST_EMAIL_CODE;
}

/** Clerk's answer to a wrong code. */
export function refuseWrongCode(code: unknown): void {
  if (!isSentCode(code)) throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
}
