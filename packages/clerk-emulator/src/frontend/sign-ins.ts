import type { Request, Response } from "express";
import {
  recordFailedAttempt,
  recordSuccessfulAttempt,
  refuseBarredUser,
  refuseUnlistedIdentifier,
} from "../domain/account-restrictions";
import { newId } from "../state/ids";
import { startImpersonation, usableActorToken } from "../domain/actor-tokens";
import { redeemTicket, ticketUser, usableTicket } from "../domain/invitations";
import { signInJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { verificationCodeEmail } from "../domain/messages";
import { twoFactorEnabled } from "../domain/mfa";
import { verifyPassword, type ClientRecord, type UserRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";
import { prepareSignInEmailLink } from "./email-links";
import { attemptPasskeySignIn, preparePasskeySignIn } from "./passkeys";
import { registerSecondFactorRoutes } from "./sign-in-second-factor";
import { preparePhoneCode, refuseUnpreparedPhoneCode } from "./sign-in-phone";
import { userByIdentifier } from "../domain/identifiers";
import { TEST_EMAIL_CODE, isSentCode } from "../domain/verification-codes";

/** The instance's first factors (`first_factors` in the environment): any other strategy is Clerk's 422. */
const SIGN_IN_STRATEGIES = ["password", "email_code", "email_link", "phone_code", "ticket"];

/** First factors whose code is emailed: a sign-in code, or the code that starts a password reset. */
const CODE_STRATEGIES = ["email_code", "reset_password_email_code"];

/** Signing in: password, an email or SMS code, or a ticket (an invitation or sign-in link). */
export function registerSignInRoutes(route: Route, fapi: FrontendContext): void {
  const { store, ensureClient, envelope, finishSignIn, refuseIfSignedIn } = fapi;

  /** The first factor is verified: a user with two-factor on is asked for it, anyone else is signed in. */
  const afterFirstFactor = (req: Request, client: ClientRecord, user: UserRecord) => {
    const signIn = client.signIn!;
    if (twoFactorEnabled(store, user)) {
      signIn.status = "needs_second_factor";
      return;
    }
    signIn.status = "complete";
    signIn.createdSessionId = finishSignIn(req, client, user.id).id;
  };

  const attemptPassword = (req: Request, client: ClientRecord, password: string | null) => {
    const signIn = client.signIn;
    const user = signIn?.userId ? store.user(signIn.userId) : null;
    if (!signIn || !user)
      throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
    refuseBarredUser(user);
    if (!password || !verifyPassword(password, user.passwordHash)) {
      signIn.firstFactorStrategy = "password";
      signIn.firstFactorStatus = "unverified";
      recordFailedAttempt(store, user);
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
    recordSuccessfulAttempt(user);
    signIn.firstFactorStrategy = "password";
    signIn.firstFactorStatus = "verified";
    afterFirstFactor(req, client, user);
  };

  /**
   * Clerk emails the sign-in code to the address asked for (`email_address_id`), else the primary one: a
   * password reset's in its `reset_password_code` email, a sign-in code in `verification_code`.
   */
  const emailCode = (req: Request, user: UserRecord, strategy = "email_code") => {
    const wanted = str(req.body?.email_address_id);
    const email = user.emails.find((e) => e.id === wanted && e.verified) ?? { id: user.emailId, email: user.email };
    const to = { address: email.email, emailAddressId: email.id, userId: user.id };
    const message = verificationCodeEmail(store, req.get("user-agent") ?? null, to, TEST_EMAIL_CODE);
    store.send(strategy === "reset_password_email_code" ? { ...message, slug: "reset_password_code" } : message);
  };

  route("POST", "/v1/client/sign_ins", (req, res) => {
    // Clerk's order: the single-session check, then the strategy, then the identifier.
    refuseIfSignedIn(req);
    const strategy = str(req.body?.strategy);
    // Passkeys are a first factor only on an instance that has them (emulator/frontend/passkeys.ts).
    const strategies = store.settings.passkeys ? [...SIGN_IN_STRATEGIES, "passkey"] : SIGN_IN_STRATEGIES;
    if (strategy !== null && !strategies.includes(strategy)) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "strategy",
        `${strategy} does not match one of the allowed values for parameter strategy`,
      );
    }
    const identifier = str(req.body?.identifier)?.trim() ?? null;
    if (identifier === "" && strategy !== "ticket") {
      throw new ApiError(422, "form_param_nil", "Enter email address.", "identifier");
    }
    const client = ensureClient(req, res);
    const now = Date.now();
    client.signIn = {
      id: newId("sia"),
      identifier,
      userId: null,
      status: "needs_identifier",
      createdSessionId: null,
      firstFactorStrategy: null,
      firstFactorStatus: null,
      createdAt: now,
    };
    if (strategy === "ticket") {
      // An invitation, sign-in or impersonation link: the ticket alone signs its user in.
      const actorToken = usableActorToken(store, str(req.body?.ticket));
      const ticket = actorToken ? null : usableTicket(store, str(req.body?.ticket));
      const userId = actorToken?.userId ?? ticketUser(store, ticket!);
      const ticketHolder = store.user(userId);
      if (ticketHolder) refuseBarredUser(ticketHolder);
      if (ticket) redeemTicket(store, ticket, userId);
      const session = finishSignIn(req, client, userId);
      if (actorToken) startImpersonation(store, session, actorToken);
      Object.assign(client.signIn, {
        identifier: store.user(userId)?.email ?? null,
        userId,
        status: "complete",
        firstFactorStrategy: "ticket",
        firstFactorStatus: "verified",
        createdSessionId: session.id,
      });
    } else if (strategy === "passkey" && !identifier) {
      // clerk-js's discoverable passkey flow: no identifier, the authenticator picks the account.
      preparePasskeySignIn(fapi, req, client.signIn);
    } else if (identifier) {
      // An email address, a username or a phone number.
      const user = userByIdentifier(store, identifier);
      if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
      refuseUnlistedIdentifier(store, identifier, "sign_in");
      refuseBarredUser(user);
      client.signIn.userId = user.id;
      client.signIn.status = "needs_first_factor";
      if (str(req.body?.password) !== null || strategy === "password") {
        attemptPassword(req, client, str(req.body?.password));
      } else if (strategy === "email_code") {
        // Clerk prepares a code factor as part of creating the sign-in (the code is always TEST_EMAIL_CODE).
        client.signIn.firstFactorStrategy = "email_code";
        client.signIn.firstFactorStatus = "unverified";
        emailCode(req, user);
      } else if (strategy === "email_link") {
        // Clerk sends the link as it creates the sign-in (emulator/frontend/email-links.ts).
        prepareSignInEmailLink(fapi, req, client, client.signIn);
      } else if (strategy === "passkey") {
        preparePasskeySignIn(fapi, req, client.signIn);
      } else if (strategy === "phone_code") {
        preparePhoneCode(store, req, client.signIn, user);
      }
    }
    client.updatedAt = now;
    store.changed();
    return envelope(req, res, client, signInJSON(store, client.signIn));
  });

  const currentSignIn = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    if (!client.signIn || client.signIn.id !== req.params.id) {
      throw new ApiError(404, "resource_not_found", "Sign-in not found");
    }
    return { client, signIn: client.signIn };
  };

  registerSecondFactorRoutes(route, fapi, currentSignIn);

  route("GET", "/v1/client/sign_ins/:id", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/prepare_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    if (str(req.body?.strategy) === "email_link") {
      prepareSignInEmailLink(fapi, req, client, signIn);
      return envelope(req, res, client, signInJSON(store, signIn));
    }
    if (str(req.body?.strategy) === "passkey") {
      preparePasskeySignIn(fapi, req, signIn);
      return envelope(req, res, client, signInJSON(store, signIn));
    }
    signIn.firstFactorStrategy = str(req.body?.strategy) ?? "email_code";
    signIn.firstFactorStatus = "unverified";
    const user = signIn.userId ? store.user(signIn.userId) : null;
    if (CODE_STRATEGIES.includes(signIn.firstFactorStrategy) && user) emailCode(req, user, signIn.firstFactorStrategy);
    if (signIn.firstFactorStrategy === "phone_code" && user) preparePhoneCode(store, req, signIn, user);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    const strategy = str(req.body?.strategy);
    if (strategy === "password") {
      attemptPassword(req, client, str(req.body?.password));
    } else if (strategy === "email_code" || strategy === "reset_password_email_code" || strategy === "phone_code") {
      if (strategy === "phone_code") refuseUnpreparedPhoneCode(signIn);
      const user = signIn.userId ? store.user(signIn.userId) : null;
      if (user) refuseBarredUser(user);
      if (!isSentCode(req.body?.code) || !user) {
        if (user) recordFailedAttempt(store, user);
        throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
      }
      recordSuccessfulAttempt(user);
      signIn.firstFactorStrategy = strategy;
      signIn.firstFactorStatus = "verified";
      // The forgotten password's code proves the address: the person now chooses a new password (reset_password).
      if (strategy === "reset_password_email_code") signIn.status = "needs_new_password";
      else afterFirstFactor(req, client, user);
    } else if (strategy === "passkey") {
      attemptPasskeySignIn(fapi, req, client, signIn);
    } else {
      throw new ApiError(422, "strategy_for_user_invalid", "That sign-in method is not available.", "strategy");
    }
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });
}
