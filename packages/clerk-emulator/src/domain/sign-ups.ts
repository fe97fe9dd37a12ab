import { newId } from "../state/ids";
import { hashPassword, type ClientRecord, type SignUpRecord, type Store, type UserRecord } from "../state/store";
import { refuseBlockedEmailAddress, refuseUnlistedIdentifier } from "./account-restrictions";
import { ApiError } from "./errors";
import { parseMetadata } from "./metadata";
import { EMAIL, redeemTicket, usableTicket, type Ticket } from "./invitations";
import {
  applySignUpIdentifiers,
  carrySignUpIdentifiers,
  refuseTakenSignUpIdentifiers,
  signUpPhoneReady,
} from "./sign-up-identifiers";
import { isSentCode, emailCode } from "./verification-codes";

/**
 * A client's sign-up: an email address and a password (or an invitation's
 * ticket, which verifies the address), a name, and optionally a username and
 * a phone number; the address verified by a code (or an emailed link), and
 * then the user made and signed in, with the session the Frontend API made.
 */

/** The fields a sign-up is given at its creation or by a later PATCH; null (or, for the identifiers, absent) where not given. */
export type SignUpFields = {
  strategy: string | null;
  ticket: string | null;
  /** Trimmed and lowercased. */
  emailAddress: string | null;
  password: string | null;
  username: unknown;
  phoneNumber: unknown;
  firstName: string | null;
  lastName: string | null;
  /** `legal_accepted`: true accepts the legal terms, false takes the acceptance back. */
  legalAccepted: boolean | null;
  /** `unsafe_metadata` as sent (a JSON object, or its text in a form body); undefined where not sent. It replaces what was there. */
  unsafeMetadata: unknown;
};

/** Only an invitation's ticket can sign someone up; a sign-in token's cannot. */
export function signUpInvitation(store: Store, value: string | null): Extract<Ticket, { kind: "invitation" }> {
  const ticket = usableTicket(store, value);
  if (ticket.kind !== "invitation") {
    throw new ApiError(400, "ticket_invalid_code", "This link signs in an existing account; it cannot sign up.");
  }
  return ticket;
}

/** The sign-up's address, or Clerk's 422 when it has none yet. */
export function requireSignUpEmail(signUp: SignUpRecord): string {
  if (!signUp.email) throw new ApiError(422, "form_param_missing", "Enter your email address.", "email_address");
  return signUp.email;
}

/**
 * The instance's sign-up mode (`user_settings.sign_up.mode`) lets only invited people sign up when it is
 * `restricted` or `waitlist`: a sign-up without an invitation's ticket is Clerk's 403,
 * `sign_up_mode_restricted` or `sign_up_restricted_waitlist` (the waitlist's invitations carry tickets).
 */
export function refuseClosedSignUp(store: Store, invited: boolean): void {
  const mode = store.settings.instance.signUpMode;
  if (mode === "public" || invited) return;
  if (mode === "restricted") {
    throw new ApiError(
      403,
      "sign_up_mode_restricted",
      "Sign-ups are restricted",
      undefined,
      "This application is invitation only: you need an invitation to sign up.",
    );
  }
  throw new ApiError(
    403,
    "sign_up_restricted_waitlist",
    "Sign-ups are currently unavailable",
    undefined,
    "Sign-ups are currently unavailable. Join the waitlist to be notified when access becomes available.",
  );
}

/**
 * Whether the sign-up's address lets it finish: verified (by a code, a link or an invitation's ticket), or
 * anything at all where the instance does not verify at sign-up (`verify_at_sign_up` off).
 */
function signUpEmailReady(store: Store, signUp: SignUpRecord): boolean {
  return signUp.emailVerification === "verified" || !store.settings.instance.emailVerifyAtSignUp;
}

/** What a sign-up still lacks of what the instance requires beyond its identifiers: the legal terms, when asked for. */
export function missingSignUpRequirements(store: Store, signUp: SignUpRecord): string[] {
  return store.settings.instance.legalConsentEnabled && !signUp.legalAcceptedAt ? ["legal_accepted"] : [];
}

/** A new sign-up on the client (it replaces any earlier one), with the fields given, as `updateSignUp` takes them. */
export function startSignUp(store: Store, client: ClientRecord, fields: SignUpFields): SignUpRecord {
  refuseClosedSignUp(store, fields.strategy === "ticket" && Boolean(fields.ticket));
  return store.write(() => {
    const signUp: SignUpRecord = {
      id: newId("sua"),
      email: null,
      passwordHash: null,
      firstName: null,
      lastName: null,
      emailVerification: "none",
      ticket: null,
      username: null,
      phone: null,
      phoneVerification: "none",
      status: "missing_requirements",
      createdUserId: null,
      createdSessionId: null,
      createdAt: Date.now(),
    };
    client.signUp = signUp;
    applySignUpFields(store, client, signUp, fields);
    return signUp;
  });
}

/**
 * Fields given to a sign-up, each checked as Clerk checks it, in Clerk's order:
 * an invitation's ticket (which verifies its address), another address (to be
 * verified the usual way), the password, the username and phone number, the
 * name. A refused field leaves those before it set and tells no one.
 */
export function updateSignUp(store: Store, client: ClientRecord, signUp: SignUpRecord, fields: SignUpFields): void {
  store.write(() => applySignUpFields(store, client, signUp, fields));
}

function applySignUpFields(store: Store, client: ClientRecord, signUp: SignUpRecord, fields: SignUpFields): void {
  if (fields.strategy === "ticket" && fields.ticket && !signUp.ticket) {
    // An invitation link: its address is verified by the ticket itself.
    const ticket = signUpInvitation(store, fields.ticket);
    if (store.userByEmail(ticket.invitation.email)) {
      throw new ApiError(
        400,
        "organization_invitation_identification_already_exists",
        "The email address in this invitation already exists. If it belongs to you, try signing in instead.",
      );
    }
    refuseUnlistedIdentifier(store, ticket.invitation.email, "sign_up", { invited: true });
    signUp.ticket = ticket.invitation.ticket;
    signUp.email = ticket.invitation.email;
    signUp.emailVerification = "verified";
  }
  const email = fields.emailAddress;
  if (email !== null && email !== signUp.email) {
    if (!EMAIL.test(email)) {
      throw new ApiError(
        422,
        "form_param_format_invalid",
        "Email address must be a valid email address.",
        "email_address",
      );
    }
    if (store.emailTaken(email)) {
      throw new ApiError(
        422,
        "form_identifier_exists",
        "That email address is taken. Please try another.",
        "email_address",
      );
    }
    refuseBlockedEmailAddress(store, email);
    refuseUnlistedIdentifier(store, email, "sign_up");
    // Another address than the invited one must be verified the usual way.
    signUp.email = email;
    signUp.emailVerification = "none";
    signUp.ticket = null;
  }
  const password = fields.password;
  if (password !== null) {
    if (password.length < 8) {
      throw new ApiError(422, "form_password_length_too_short", "Passwords must be 8 characters or more.", "password");
    }
    signUp.passwordHash = hashPassword(password);
  }
  applySignUpIdentifiers(store, signUp, { username: fields.username, phoneNumber: fields.phoneNumber });
  if (fields.firstName !== null) signUp.firstName = fields.firstName.trim().slice(0, 100) || null;
  if (fields.lastName !== null) signUp.lastName = fields.lastName.trim().slice(0, 100) || null;
  if (fields.legalAccepted !== null) signUp.legalAcceptedAt = fields.legalAccepted ? Date.now() : null;
  if (fields.unsafeMetadata !== undefined)
    signUp.unsafeMetadata = parseMetadata(fields.unsafeMetadata, "unsafe_metadata");
  client.updatedAt = Date.now();
}

/** `prepare_verification` by code: unless verified already, the address waits for the code Clerk emails it. */
export function prepareSignUpEmailCode(store: Store, signUp: SignUpRecord, userAgent: string | null): void {
  const address = requireSignUpEmail(signUp);
  if (signUp.emailVerification === "verified") return;
  markSignUpEmailSent(store, signUp, "email_code");
  // The code Clerk emails (always the test code): an app's tests read it from `email.created`.
  emailCode(store, userAgent, { address, emailAddressId: null, userId: null });
}

/** The address waits, unverified, for the code or the link (`strategy`) sent to it. */
export function markSignUpEmailSent(store: Store, signUp: SignUpRecord, strategy: "email_code" | "email_link"): void {
  store.write(() => {
    signUp.emailVerification = "unverified";
    signUp.emailVerificationStrategy = strategy;
  });
}

/** `attempt_verification` with the emailed code: Clerk's 422 for a wrong one, else the address is verified. */
export function attemptSignUpEmailCode(store: Store, signUp: SignUpRecord, code: unknown): void {
  if (!isSentCode(code)) throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  setSignUpEmailVerification(store, signUp, "verified");
}

/** The address's verification set as is: verified by its link, or back to unverified when the link could not finish the sign-up. */
export function setSignUpEmailVerification(
  store: Store,
  signUp: SignUpRecord,
  status: "verified" | "unverified",
): void {
  store.write(() => {
    signUp.emailVerification = status;
  });
}

/**
 * The user a sign-up makes once it has all it needs: a verified address, a
 * password, and a verified phone number if one was given; null until then
 * (or once it has made its user). Clerk's refusals for an identifier taken,
 * or an invitation revoked, since the sign-up began. The new user carries the
 * sign-up's username, phone number and external id, and an invitation's ticket
 * makes them a member.
 */
export function createSignUpUser(store: Store, signUp: SignUpRecord): UserRecord | null {
  if (!signUp.email || !signUp.passwordHash || !signUpEmailReady(store, signUp) || signUp.createdUserId) return null;
  if (!signUpPhoneReady(signUp)) return null;
  if (missingSignUpRequirements(store, signUp).length > 0) return null;
  // Checked again: an address changed since the sign-up began drops the invitation's ticket.
  refuseClosedSignUp(store, Boolean(signUp.ticket));
  refuseTakenSignUpIdentifiers(store, signUp);
  if (store.emailTaken(signUp.email)) {
    throw new ApiError(
      422,
      "form_identifier_exists",
      "That email address is taken. Please try another.",
      "email_address",
    );
  }
  // Checked again now: the invitation may have been revoked since the sign-up began.
  const ticket = signUp.ticket ? signUpInvitation(store, signUp.ticket) : null;
  // A write of its own, told at once: what verified domains hand out sees the user before the ticket's membership.
  const account = {
    email: signUp.email,
    emailVerified: signUp.emailVerification === "verified",
    passwordHash: signUp.passwordHash,
    firstName: signUp.firstName,
    lastName: signUp.lastName,
  };
  const user = store.write(() => store.createUser(account));
  carrySignUpIdentifiers(store, signUp, user);
  if (ticket) redeemTicket(store, ticket, user.id);
  // An external id the Backend API set on the sign-up (`PATCH /v1/sign_ups/:id`) is the user's, and so is the
  // moment the legal terms were accepted.
  // The sign-up's unsafe metadata is the user's too (Clerk's `<SignUp unsafeMetadata>`).
  const { externalId, legalAcceptedAt, unsafeMetadata } = signUp;
  if (externalId || legalAcceptedAt || unsafeMetadata) {
    store.write(() => {
      if (externalId) user.externalId = externalId;
      if (legalAcceptedAt) user.legalAcceptedAt = legalAcceptedAt;
      if (unsafeMetadata) user.unsafeMetadata = unsafeMetadata;
    });
  }
  return user;
}

/** The sign-up is done: its user made and signed in with the session `sessionId`. */
export function completeSignUp(store: Store, signUp: SignUpRecord, userId: string, sessionId: string): void {
  store.write(() => {
    signUp.status = "complete";
    signUp.createdUserId = userId;
    signUp.createdSessionId = sessionId;
  });
}
