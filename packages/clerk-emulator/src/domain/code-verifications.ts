import { newId } from "../state/ids";
import type { CodeVerificationRecord, Store } from "../state/store";
import { ApiError } from "./errors";
import { isSentCode } from "./verification-codes";

/**
 * The Backend API's verifications of an email address or a phone number by a sent code
 * (`prepare_verification`, then `attempt_verification`): kept in the store's memory, never in the state file,
 * and gone with a reset. Clerk's codes last ten minutes and take three wrong tries.
 */
const CODE_LIFETIME_MS = 10 * 60_000;
const MAX_CODE_ATTEMPTS = 3;

/** Which of the store's memory maps: the email addresses' or the phone numbers'. */
export type CodeVerificationKind = "emailVerifications" | "phoneVerifications";

/** A new verification of one address or number, waiting for its code. */
export function startCodeVerification(
  store: Store,
  kind: CodeVerificationKind,
  identificationId: string,
): CodeVerificationRecord {
  return store.write((_state, memory) => {
    const verification: CodeVerificationRecord = {
      id: newId("ver"),
      identificationId,
      status: "unverified",
      attempts: 0,
      expireAt: Date.now() + CODE_LIFETIME_MS,
    };
    memory[kind].set(verification.id, verification);
    return verification;
  });
}

/**
 * One try of a code: a wrong or late code is told through the status, not as an error; a spent verification
 * is (Clerk's description). `verified` runs once, when the code is right.
 */
export function attemptCodeVerification(
  store: Store,
  kind: CodeVerificationKind,
  identificationId: string,
  verificationId: string,
  code: string,
  verified: () => void,
): CodeVerificationRecord {
  // A refusal thrown inside the write changes nothing and tells no one.
  return store.write((_state, memory) => {
    const verification = memory[kind].get(verificationId);
    if (!verification || verification.identificationId !== identificationId) {
      throw new ApiError(404, "resource_not_found", "Verification not found", "verification_id");
    }
    if (verification.status === "verified") {
      throw new ApiError(400, "verification_already_verified", "This verification has already been verified.");
    }
    if (verification.status === "unverified" && verification.expireAt <= Date.now()) verification.status = "expired";
    if (verification.status !== "unverified") return verification;
    verification.attempts += 1;
    if (isSentCode(code)) {
      verification.status = "verified";
      verified();
    } else if (verification.attempts >= MAX_CODE_ATTEMPTS) {
      verification.status = "failed";
    }
    return verification;
  });
}
