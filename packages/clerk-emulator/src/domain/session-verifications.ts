import { newId } from "../state/ids";
import {
  verifyPassword,
  type SessionRecord,
  type SessionVerificationRecord,
  type Store,
  type UserRecord,
} from "../state/store";
import { ApiError } from "./errors";
import { checkSecondFactor, factorVerificationAge, markFactorVerified, twoFactorEnabled } from "./mfa";
import { isSentCode, emailCode } from "./verification-codes";

/**
 * Reverification ("session verification"): the signed-in person proves a
 * factor again, so that a sensitive action finds the session's `fva` fresh.
 * The steps mirror a sign-in's: first factor (password or an email code),
 * then, for `multi_factor`, the second.
 */

type Level = SessionVerificationRecord["level"];

/** How long a verified factor counts for a sensitive action: Clerk's `strict` (its prebuilt components' level). */
const FRESH_FOR_MINUTES = 10;

/**
 * Whether a sensitive change of the person's own account must wait for a reverification, on an instance
 * with reverification on (`auth_config.reverification`): when a reverification was started on the session
 * and is not complete (`session.startVerification()`, which leaves the session's `fva` as it is: Clerk's
 * own reverification spec starts one right after signing in and expects <UserProfile/>'s next change to
 * ask for it), or when the person's strongest factor (the second, when they have one; else the first) was
 * verified 10 minutes ago or more, or never (Clerk's `strict`: `second_factor` after 10 minutes).
 */
export function reverificationNeeded(
  store: Store,
  session: SessionRecord,
  user: UserRecord,
  nowMs = Date.now(),
): boolean {
  if (!store.settings.instance.reverification) return false;
  if (session.verification && session.verification.status !== "complete") return true;
  const [first, second] = factorVerificationAge(session, nowMs);
  const age = twoFactorEnabled(store, user) ? second : first;
  return age === -1 || age >= FRESH_FOR_MINUTES;
}

/**
 * Clerk's 403 `session_reverification_required` when the change must wait (`reverificationNeeded`):
 * clerk-js's `useReverification` opens its verification modal on that code, then sends the change again.
 */
export function ensureReverified(store: Store, session: SessionRecord, user: UserRecord): void {
  if (!reverificationNeeded(store, session, user)) return;
  throw new ApiError(
    403,
    "session_reverification_required",
    "You need to provide additional verification to perform this operation",
    undefined,
    undefined,
    {},
    { reverification: { level: "second_factor", after_minutes: FRESH_FOR_MINUTES } },
  );
}

/**
 * Starts a reverification of the session at `level`. A person with no second
 * factor is asked for the first, whatever the level (Clerk's fallback).
 */
export function startSessionVerification(
  store: Store,
  session: SessionRecord,
  user: UserRecord,
  asked: Level,
): SessionVerificationRecord {
  const level = twoFactorEnabled(store, user) ? asked : "first_factor";
  const verification: SessionVerificationRecord = {
    id: newId("sessver"),
    level,
    status: level === "second_factor" ? "needs_second_factor" : "needs_first_factor",
    firstFactor: null,
    secondFactor: null,
    createdAt: Date.now(),
  };
  return store.write(() => (session.verification = verification));
}

/** The session's reverification, at step `status`, or Clerk's 400 for a step asked for out of turn. */
export function sessionVerificationAt(
  session: SessionRecord,
  status: SessionVerificationRecord["status"],
): SessionVerificationRecord {
  const v = session.verification;
  if (!v || v.status !== status) {
    throw new ApiError(
      400,
      "session_verification_status_invalid",
      "This reverification is not at that step.",
      undefined,
      `The reverification's status is ${v?.status ?? "(not started)"}; this request needs ${status}.`,
    );
  }
  return v;
}

/**
 * The first factor's email code sent to one of the user's verified addresses
 * (`emailAddressId`, else the primary one; Clerk's 422 for another): the step
 * waits for it, unverified.
 */
export function prepareVerificationEmailCode(
  store: Store,
  v: SessionVerificationRecord,
  user: UserRecord,
  emailAddressId: string | null,
  userAgent: string | null,
): void {
  const wanted = emailAddressId ?? user.emailId;
  const email = user.emails.find((e) => e.id === wanted && e.verified);
  if (!email) throw new ApiError(422, "form_param_value_invalid", "No such email address.", "email_address_id");
  emailCode(store, userAgent, { address: email.email, emailAddressId: email.id, userId: user.id });
  store.write(() => {
    v.firstFactor = { strategy: "email_code", status: "unverified" };
  });
}

/**
 * The first factor attempted: the password (a wrong one fails the step,
 * Clerk's 422) or the email code prepared before; any other strategy is
 * Clerk's 422. Verified, the reverification is complete, or, at
 * `multi_factor`, waits for the second factor; the session's `fva` counts the
 * first factor from now.
 */
export function attemptVerificationFirstFactor(
  store: Store,
  session: SessionRecord,
  v: SessionVerificationRecord,
  user: UserRecord,
  attempt: { strategy: string | null; password: string | null; code: unknown },
): void {
  const { strategy } = attempt;
  if (strategy === "password") {
    if (!attempt.password || !verifyPassword(attempt.password, user.passwordHash)) {
      store.write(() => {
        v.firstFactor = { strategy, status: "failed" };
      });
      throw new ApiError(
        422,
        "form_password_incorrect",
        "Password is incorrect. Try again, or use another method.",
        "password",
      );
    }
  } else if (strategy === "email_code") {
    if (v.firstFactor?.strategy !== "email_code") {
      throw new ApiError(400, "verification_missing", "Prepare the email code first.", "strategy");
    }
    if (!isSentCode(attempt.code)) throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  } else {
    throw new ApiError(
      422,
      "strategy_for_user_invalid",
      "That verification strategy is not valid for this account.",
      "strategy",
    );
  }
  store.write(() => {
    v.firstFactor = { strategy, status: "verified" };
    v.status = v.level === "multi_factor" ? "needs_second_factor" : "complete";
    markFactorVerified(session, "first");
  });
}

/** The second factor's code attempted (Clerk's refusals: mfa.ts's `checkSecondFactor`): right, the reverification is complete. */
export function attemptVerificationSecondFactor(
  store: Store,
  session: SessionRecord,
  v: SessionVerificationRecord,
  user: UserRecord,
  strategy: string | null,
  code: string | null,
): void {
  checkSecondFactor(store, user, strategy, code);
  store.write(() => {
    v.secondFactor = { strategy: strategy!, status: "verified" };
    v.status = "complete";
    markFactorVerified(session, "second");
  });
}
