import type { Request, Response } from "express";
import {
  recordFailedAttempt,
  recordSuccessfulAttempt,
  refuseBarredUser,
  refuseUnlistedIdentifier,
} from "../account-restrictions";
import { newId } from "../ids";
import { redeemTicket, ticketUser, usableTicket } from "../invitations";
import { signInJSON } from "../json";
import { ApiError, str } from "../routing";
import { verificationCodeEmail } from "../messages";
import { verifyPassword, type ClientRecord, type UserRecord } from "../store";
import type { FrontendContext, Route } from "./context";

/** Sign-in code (email) that always works, as in Clerk's test mode. */
export const TEST_EMAIL_CODE = "424242";

/** The instance's first factors (`first_factors` in the environment): any other strategy is Clerk's 422. */
const SIGN_IN_STRATEGIES = ["password", "email_code", "ticket"];

/** Signing in: password, an email code, or a ticket (an invitation or sign-in link). */
export function registerSignInRoutes(route: Route, fapi: FrontendContext): void {
  const { store, ensureClient, envelope, finishSignIn, refuseIfSignedIn } = fapi;

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
    const session = finishSignIn(req, client, user.id);
    signIn.status = "complete";
    signIn.firstFactorStrategy = "password";
    signIn.firstFactorStatus = "verified";
    signIn.createdSessionId = session.id;
  };

  /** Clerk emails the sign-in code to the address asked for (`email_address_id`), else the primary one. */
  const emailCode = (req: Request, user: UserRecord) => {
    const wanted = str(req.body?.email_address_id);
    const email = user.emails.find((e) => e.id === wanted && e.verified) ?? { id: user.emailId, email: user.email };
    const to = { address: email.email, emailAddressId: email.id, userId: user.id };
    store.send(verificationCodeEmail(store, req, to, TEST_EMAIL_CODE));
  };

  route("POST", "/v1/client/sign_ins", (req, res) => {
    // Clerk's order: the single-session check, then the strategy, then the identifier.
    refuseIfSignedIn(req);
    const strategy = str(req.body?.strategy);
    if (strategy !== null && !SIGN_IN_STRATEGIES.includes(strategy)) {
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
      // An invitation or sign-in link: the ticket alone signs its user in.
      const ticket = usableTicket(store, str(req.body?.ticket));
      const userId = ticketUser(store, ticket);
      const ticketHolder = store.user(userId);
      if (ticketHolder) refuseBarredUser(ticketHolder);
      redeemTicket(store, ticket, userId);
      const session = finishSignIn(req, client, userId);
      Object.assign(client.signIn, {
        identifier: store.user(userId)?.email ?? null,
        userId,
        status: "complete",
        firstFactorStrategy: "ticket",
        firstFactorStatus: "verified",
        createdSessionId: session.id,
      });
    } else if (identifier) {
      const user = store.userByEmail(identifier);
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

  route("GET", "/v1/client/sign_ins/:id", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/prepare_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    signIn.firstFactorStrategy = str(req.body?.strategy) ?? "email_code";
    signIn.firstFactorStatus = "unverified";
    const user = signIn.userId ? store.user(signIn.userId) : null;
    if (signIn.firstFactorStrategy === "email_code" && user) emailCode(req, user);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    const strategy = str(req.body?.strategy);
    if (strategy === "password") {
      attemptPassword(req, client, str(req.body?.password));
    } else if (strategy === "email_code") {
      const user = signIn.userId ? store.user(signIn.userId) : null;
      if (user) refuseBarredUser(user);
      if (str(req.body?.code) !== TEST_EMAIL_CODE || !signIn.userId) {
        if (user) recordFailedAttempt(store, user);
        throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
      }
      if (user) recordSuccessfulAttempt(user);
      const session = finishSignIn(req, client, signIn.userId);
      signIn.status = "complete";
      signIn.firstFactorStatus = "verified";
      signIn.createdSessionId = session.id;
    } else {
      throw new ApiError(422, "strategy_for_user_invalid", "That sign-in method is not available.", "strategy");
    }
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });
}
