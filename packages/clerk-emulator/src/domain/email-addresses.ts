import { newId } from "../state/ids";
import { ApiError } from "./errors";
import type { CodeVerificationRecord, EmailRecord, Store, UserRecord } from "../state/store";
import { attemptCodeVerification, startCodeVerification } from "./code-verifications";
import { emailCode } from "./verification-codes";

/**
 * A user's email addresses, as the person changes them (`/v1/me/email_addresses`, `by: "owner"`) and as the
 * Backend API does (`by: "admin"`): an address belongs to one user, the primary one must be verified and
 * cannot be deleted, and only a verified address signs in. The two APIs word some refusals differently.
 */
export type EmailChanger = "owner" | "admin";

/** Refused while anyone but `except` holds the address, verified or not. */
export function refuseTakenEmail(store: Store, address: string, except?: UserRecord): void {
  if (store.emailTaken(address, except)) {
    throw new ApiError(
      422,
      "form_identifier_exists",
      "That email address is taken. Please try another.",
      "email_address",
    );
  }
}

/** Makes a verified address the primary one; the Backend API's 422 (`primary`) for an unverified one. */
function makePrimary(user: UserRecord, email: EmailRecord): void {
  if (!email.verified) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "Only a verified email address can be primary.",
      "primary",
      "An unverified email address cannot be the primary one: verify it first.",
    );
  }
  user.email = email.email;
  user.emailId = email.id;
}

/** A new address on the user's profile (taken ones refused), verified and made primary if asked. */
export function addEmailAddress(
  store: Store,
  user: UserRecord,
  address: string,
  { verified = false, primary = false } = {},
): EmailRecord {
  refuseTakenEmail(store, address);
  const t = Date.now();
  const email: EmailRecord = { id: newId("idn"), email: address, verified, createdAt: t, updatedAt: t };
  return store.write(() => {
    if (primary) makePrimary(user, email);
    user.emails.push(email);
    user.updatedAt = t;
    return email;
  });
}

/**
 * Marks the address verified after its code. The person's own (`owner`) is refused only when someone has
 * verified it meanwhile; through the Backend API (`admin`) the address becomes the user's alone, refused
 * while anyone else holds it at all.
 */
export function verifyEmailAddress(store: Store, user: UserRecord, email: EmailRecord, by: EmailChanger): void {
  if (by === "owner" && store.userByEmail(email.email)) {
    throw new ApiError(422, "form_identifier_exists", "That email address is taken.", "email_address");
  }
  if (by === "admin") refuseTakenEmail(store, email.email, user);
  markEmailVerified(store, user, email);
}

/** The address is verified now (by its code, its link, or a sign-in code sent to it), and so its user changed. */
export function markEmailVerified(store: Store, user: UserRecord, email: EmailRecord): void {
  store.write(() => {
    email.verified = true;
    email.updatedAt = Date.now();
    user.updatedAt = email.updatedAt;
  });
}

/**
 * The Backend API's `prepare_verification`: a verification waiting for the code, which is always the test code;
 * the email that carries it is an `email.created` webhook. `userAgent` is the asking client's, as the email names it.
 */
export function prepareEmailVerification(
  store: Store,
  user: UserRecord,
  email: EmailRecord,
  userAgent: string | null,
): CodeVerificationRecord {
  const verification = startCodeVerification(store, "emailVerifications", email.id);
  emailCode(store, userAgent, { address: email.email, emailAddressId: email.id, userId: user.id });
  return verification;
}

/** The Backend API's `attempt_verification`: the right code verifies the address (`admin`), if not already. */
export function attemptEmailVerification(
  store: Store,
  user: UserRecord,
  email: EmailRecord,
  verificationId: string,
  code: string,
): CodeVerificationRecord {
  return attemptCodeVerification(store, "emailVerifications", email.id, verificationId, code, () => {
    if (!email.verified) verifyEmailAddress(store, user, email, "admin");
  });
}

/** The Backend API's update: `verified` (the primary address stays verified) and `primary`, in that order. */
export function updateEmailAddress(
  store: Store,
  user: UserRecord,
  email: EmailRecord,
  changes: { verified?: boolean; primary: boolean },
): EmailRecord {
  return store.write(() => {
    if (changes.verified !== undefined) {
      if (!changes.verified && email.id === user.emailId) {
        throw new ApiError(
          422,
          "form_param_value_invalid",
          "The primary email address must stay verified.",
          "verified",
          "Make another verified address primary before marking this one unverified.",
        );
      }
      // Verified, an address is the user's alone: nobody else may hold it, verified or not.
      if (changes.verified) refuseTakenEmail(store, email.email, user);
      email.verified = changes.verified;
    }
    if (changes.primary) makePrimary(user, email);
    email.updatedAt = user.updatedAt = Date.now();
    return email;
  });
}

/** Takes an address off the user's profile; the primary one is refused until another is made primary. */
export function removeEmailAddress(store: Store, user: UserRecord, email: EmailRecord, by: EmailChanger): void {
  if (email.id === user.emailId) {
    throw new ApiError(
      400,
      "primary_identification_deletion_not_allowed",
      by === "owner"
        ? "You cannot delete your primary email address. Make another address primary first."
        : "You cannot delete the primary email address. Make another address primary first.",
    );
  }
  store.write(() => {
    user.emails = user.emails.filter((e) => e !== email);
    user.updatedAt = Date.now();
  });
}

/**
 * Every address the user had goes; `address` is the one left, primary, verified or not. An unverified
 * address is not claimed: someone else may hold it too, as Clerk says.
 */
export function replaceEmailAddresses(store: Store, user: UserRecord, address: string, verified: boolean): EmailRecord {
  const kept = user.emails.find((e) => e.email === address);
  if (!kept && verified) refuseTakenEmail(store, address, user);
  const t = Date.now();
  return store.write(() => {
    const email: EmailRecord = kept ?? {
      id: newId("idn"),
      email: address,
      verified: false,
      createdAt: t,
      updatedAt: t,
    };
    email.verified = verified;
    user.emails = [email];
    user.email = email.email;
    user.emailId = email.id;
    email.updatedAt = user.updatedAt = Date.now();
    return email;
  });
}
