import { newId } from "../state/ids";
import {
  hashPassword,
  verifyPassword,
  type ActorTokenRecord,
  type ClientRecord,
  type SignInRecord,
  type Store,
  type UserRecord,
} from "../state/store";
import {
  recordFailedAttempt,
  recordSuccessfulAttempt,
  refuseBarredUser,
  refuseUnlistedIdentifier,
} from "./account-restrictions";
import { usableActorToken } from "./actor-tokens";
import { markEmailVerified } from "./email-addresses";
import { ApiError } from "./errors";
import { userByIdentifier } from "./identifiers";
import { ticketUser, usableTicket, type Ticket } from "./invitations";
import { verificationCodeEmail } from "./messages";
import { askForClientTrust, markClientTrustState } from "./client-trust";
import { checkSecondFactor, twoFactorEnabled } from "./mfa";
import { validateNewPassword } from "./passwords";
import { refuseSignedInAgain, revokeSessionsOfUser } from "./sessions";
import { preparePhoneCode, refuseUnpreparedPhoneCode } from "./sign-in-phone";
import { authenticatableSocialStrategies } from "./social-connections";
import { isSentCode, TEST_EMAIL_CODE } from "./verification-codes";

/**
 * A client's sign-in, step by step: its identifier, a first factor (a
 * password, an emailed or texted code, a ticket; email links and passkeys
 * have their own modules), a second factor for a user with two-factor on, or
 * a new password after a forgotten one; then `complete`, with the session the
 * Frontend API made for it.
 */

/** First factors whose code is emailed: a sign-in code, or the code that starts a password reset. */
const CODE_STRATEGIES = ["email_code", "reset_password_email_code"];

/**
 * The instance's first factors (`first_factors` in the environment): a sign-in created with any other
 * strategy is Clerk's 422. Email links as the instance offers them, passkeys only on an instance that has them.
 */
export function signInStrategies(store: Store): string[] {
  const { passkeys, instance } = store.settings;
  return [
    "password",
    "email_code",
    ...(instance.emailLinkSignIn ? ["email_link"] : []),
    "phone_code",
    "ticket",
    ...(passkeys ? ["passkey"] : []),
    // The social connections offered to sign in with (domain/social-connections.ts).
    ...authenticatableSocialStrategies(instance.socialConnections),
  ];
}

/** What the browser said with a step, beyond the strategy: where a code goes, and who asked. */
export type SignInStepInput = { emailAddressId: string | null; phoneNumberId: string | null; userAgent: string | null };

/** A new sign-in on the client, replacing any earlier one, waiting for its identifier. */
export function startSignIn(store: Store, client: ClientRecord, identifier: string | null): SignInRecord {
  const signIn: SignInRecord = {
    id: newId("sia"),
    identifier,
    userId: null,
    status: "needs_identifier",
    createdSessionId: null,
    firstFactorStrategy: null,
    firstFactorStatus: null,
    clientTrustState: "pending",
    createdAt: Date.now(),
  };
  return store.write(() => (client.signIn = signIn));
}

/** The user a sign-in is for, or Clerk's 422 when it names none (or one deleted since). */
export function signInUser(store: Store, signIn: SignInRecord): UserRecord {
  const user = signIn.userId ? store.user(signIn.userId) : null;
  if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
  return user;
}

/**
 * The identifier (an email address, a username or a phone number) names the
 * user, who may sign in: the sign-in waits for a first factor. Clerk's 422 for
 * no such account; its refusals for an identifier off the allowlist, a
 * barred user, and (multi-session) someone the client is signed in as already.
 */
export function identifySignIn(
  store: Store,
  client: ClientRecord,
  signIn: SignInRecord,
  identifier: string,
  /** The refusal's answer meta (the Frontend API's client), as refuseSignedInAgain takes it. */
  meta: () => Record<string, unknown>,
): UserRecord {
  const user = userByIdentifier(store, identifier);
  if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
  refuseUnlistedIdentifier(store, identifier, "sign_in");
  refuseBarredUser(user);
  refuseSignedInAgain(store, client, user.id, meta);
  store.write(() => {
    signIn.userId = user.id;
    signIn.status = "needs_first_factor";
  });
  markClientTrustState(store, client, signIn, user.id);
  return user;
}

/**
 * Whom a sign-in ticket signs in: an actor token's user (impersonation), a
 * sign-in token's, or the account with an invitation's address; Clerk's
 * refusals for a ticket that cannot be used, for a barred user, and
 * (multi-session) for someone the client is signed in as already. An
 * impersonation is not that person's own session, so it is made beside theirs
 * (Clerk's `impersonation-flow` spec impersonates the signed-in user).
 */
export function signInTicket(
  store: Store,
  client: ClientRecord,
  value: string | null,
  meta: () => Record<string, unknown>,
): { userId: string; actorToken: ActorTokenRecord | null; ticket: Ticket | null } {
  const actorToken = usableActorToken(store, value);
  const ticket = actorToken ? null : usableTicket(store, value);
  const userId = actorToken?.userId ?? ticketUser(store, ticket!);
  const holder = store.user(userId);
  if (holder) refuseBarredUser(holder);
  if (!actorToken) refuseSignedInAgain(store, client, userId, meta);
  return { userId, actorToken, ticket };
}

/**
 * A first factor prepared (`email_code` unless another is named): the sign-in
 * waits for it, unverified, and its code is emailed or texted to the user.
 */
export function prepareSignInFirstFactor(
  store: Store,
  signIn: SignInRecord,
  strategy: string,
  input: SignInStepInput,
): void {
  markFirstFactorSent(store, signIn, strategy);
  const user = signIn.userId ? store.user(signIn.userId) : null;
  if (CODE_STRATEGIES.includes(strategy) && user) sendSignInEmailCode(store, user, strategy, input);
  if (strategy === "phone_code" && user) preparePhoneCode(store, signIn, user, input.phoneNumberId);
}

/** The sign-in waits for the first factor `strategy` (a code or a link sent, a passkey's challenge), unverified. */
export function markFirstFactorSent(store: Store, signIn: SignInRecord, strategy: string): void {
  store.write(() => {
    signIn.firstFactorStrategy = strategy;
    signIn.firstFactorStatus = "unverified";
  });
}

/**
 * Clerk emails the sign-in code to the address asked for (`emailAddressId`), else the primary one: a
 * password reset's in its `reset_password_code` email, a sign-in code in `verification_code`.
 */
function sendSignInEmailCode(store: Store, user: UserRecord, strategy: string, input: SignInStepInput): void {
  const email = user.emails.find((e) => e.id === input.emailAddressId && e.verified) ?? {
    id: user.emailId,
    email: user.email,
  };
  const to = { address: email.email, emailAddressId: email.id, userId: user.id };
  const message = verificationCodeEmail(store, input.userAgent, to, TEST_EMAIL_CODE);
  store.send(strategy === "reset_password_email_code" ? { ...message, slug: "reset_password_code" } : message);
}

/**
 * The primary address, to which a sign-in's code goes, verified by the code entered (it may already be;
 * left as it is if another account verified the same address meanwhile, as a link would leave it).
 */
function verifyCodedAddress(store: Store, user: UserRecord): void {
  const primary = user.emails.find((e) => e.id === user.emailId);
  if (!primary || primary.verified || store.userByEmail(primary.email)) return;
  markEmailVerified(store, user, primary);
}

/** The first factor is verified: the user's failed attempts no longer count. */
function verifyFirstFactor(store: Store, signIn: SignInRecord, user: UserRecord, strategy: string): void {
  store.write(() => {
    recordSuccessfulAttempt(user);
    signIn.firstFactorStrategy = strategy;
    signIn.firstFactorStatus = "verified";
  });
}

/**
 * The password attempted: Clerk's refusals for a barred user, a wrong password
 * (counted toward the lockout, the password factor left unverified) and a
 * compromised one; else the first factor is verified.
 */
export function attemptSignInPassword(store: Store, signIn: SignInRecord, password: string | null): UserRecord {
  const user = signInUser(store, signIn);
  refuseBarredUser(user);
  if (!password || !verifyPassword(password, user.passwordHash)) {
    store.write(() => {
      signIn.firstFactorStrategy = "password";
      signIn.firstFactorStatus = "unverified";
      recordFailedAttempt(store, user);
    });
    throw new ApiError(
      422,
      "form_password_incorrect",
      "Password is incorrect. Try again, or use another method.",
      "password",
    );
  }
  if (user.passwordCompromised) {
    // Clerk's answer (clerk-js shows "Password compromised" and offers the other methods).
    throw new ApiError(
      422,
      "form_password_compromised",
      "Your password may be compromised. To protect your account, please continue with an alternative sign-in method. You will be required to reset your password after signing in.",
      "password",
    );
  }
  verifyFirstFactor(store, signIn, user, "password");
  return user;
}

/**
 * An emailed or texted code attempted (`email_code`, `phone_code`, or a
 * forgotten password's `reset_password_email_code`): Clerk's refusals for a
 * phone code never sent, a barred user and a wrong code (counted toward the
 * lockout); else the first factor is verified. The reset code proves the
 * address: that sign-in then waits for the new password.
 */
export function attemptSignInCode(store: Store, signIn: SignInRecord, strategy: string, code: unknown): UserRecord {
  if (strategy === "phone_code") refuseUnpreparedPhoneCode(signIn);
  const user = signIn.userId ? store.user(signIn.userId) : null;
  if (user) refuseBarredUser(user);
  if (!isSentCode(code) || !user) {
    if (user) store.write(() => recordFailedAttempt(store, user));
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  }
  store.write(() => {
    verifyFirstFactor(store, signIn, user, strategy);
    if (strategy === "reset_password_email_code") signIn.status = "needs_new_password";
    // The emailed code proves the address it went to: one left unverified at sign-up is verified now.
    if (strategy !== "phone_code") verifyCodedAddress(store, user);
  });
  return user;
}

/**
 * After the first factor (or a new password): a user with two-factor on is
 * asked for it, the sign-in waiting at `needs_second_factor` (true); a
 * password sign-in on a browser new to the person waits at
 * `needs_client_trust` where the instance has client trust on (true); anyone
 * else is to be signed in now (false).
 */
export function askForSecondFactor(store: Store, signIn: SignInRecord, user: UserRecord): boolean {
  if (!twoFactorEnabled(store, user)) return askForClientTrust(store, signIn, user);
  store.write(() => {
    signIn.status = "needs_second_factor";
  });
  return true;
}

/** The sign-in is done, with the session made for it; `fields` are what the last step settled (its factor, its user). */
export function completeSignIn(
  store: Store,
  signIn: SignInRecord,
  sessionId: string,
  fields: Partial<Pick<SignInRecord, "identifier" | "userId" | "firstFactorStrategy" | "firstFactorStatus">> = {},
): void {
  store.write(() => {
    Object.assign(signIn, fields, { status: "complete", createdSessionId: sessionId });
    // The client remembers how it last signed in (its `last_authentication_strategy`: <SignIn/>'s "Last used").
    const client = store.client(store.session(sessionId)?.clientId ?? "");
    if (client) client.lastAuthenticationStrategy = signIn.firstFactorStrategy;
  });
}

/** A step asked for out of turn: Clerk's 400 for a sign-in not at that step (or any of those steps). */
export function requireSignInStatus(
  signIn: SignInRecord,
  status: SignInRecord["status"],
  ...others: SignInRecord["status"][]
): void {
  if (signIn.status !== status && !others.includes(signIn.status)) {
    throw new ApiError(
      400,
      "sign_in_status_invalid",
      "This sign-in is not at that step.",
      undefined,
      `The sign-in's status is ${signIn.status}; this request needs ${status}.`,
    );
  }
}

/**
 * A second factor's code attempted: Clerk's refusals (mfa.ts's
 * `checkSecondFactor`) leave the factor unverified; a right code verifies it,
 * and the sign-in is to be completed.
 */
export function attemptSignInSecondFactor(
  store: Store,
  signIn: SignInRecord,
  user: UserRecord,
  strategy: string | null,
  code: string | null,
): void {
  try {
    checkSecondFactor(store, user, strategy, code);
  } catch (error) {
    store.write(() => {
      if (strategy) signIn.secondFactor = { strategy, status: "unverified" };
    });
    throw error;
  }
  store.write(() => {
    signIn.secondFactor = { strategy: strategy!, status: "verified" };
  });
}

/**
 * "Forgot password?": the new password, checked as Clerk checks a new one,
 * replaces the old; with `signOutOthers`, every active session of the user is
 * revoked.
 */
export function resetForgottenPassword(
  store: Store,
  user: UserRecord,
  password: string | null,
  signOutOthers: boolean,
): void {
  const chosen = validateNewPassword(password, "password");
  store.write(() => {
    user.passwordHash = hashPassword(chosen);
    user.passwordUpdatedAt = Date.now();
    user.updatedAt = user.passwordUpdatedAt;
    if (signOutOthers) revokeSessionsOfUser(store, user);
  });
}
