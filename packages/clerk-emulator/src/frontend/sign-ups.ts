import type { Request, Response } from "express";
import { refuseBlockedEmailAddress, refuseUnlistedIdentifier } from "../domain/account-restrictions";
import { SIGN_IN_URL, SIGN_UP_URL } from "../json/environment";
import { newId } from "../state/ids";
import { EMAIL, lookUpTicket, redeemTicket, usableTicket, type Ticket } from "../domain/invitations";
import { signUpJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { verificationCodeEmail } from "../domain/messages";
import { hashPassword, type ClientRecord, type SignUpRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";
import { prepareSignUpEmailLink, type CompleteSignUp } from "./email-links";
import { TEST_EMAIL_CODE, isSentCode } from "../domain/verification-codes";
import {
  applySignUpIdentifiers,
  attemptPhoneVerification,
  carrySignUpIdentifiers,
  preparePhoneVerification,
  refuseTakenSignUpIdentifiers,
  signUpPhoneReady,
} from "./sign-up-identifiers";

/**
 * Signing up: email + password verified by a code (or an emailed link), or an invitation's ticket;
 * and the links tickets travel in. Gives back how a sign-up completes, for the email links' landing.
 */
export function registerSignUpRoutes(route: Route, fapi: FrontendContext): { completeSignUpIfReady: CompleteSignUp } {
  const { store, ensureClient, envelope, finishSignIn, refuseIfSignedIn } = fapi;

  /** Only an invitation's ticket can sign someone up; a sign-in token's cannot. */
  const invitationTicket = (value: string | null): Extract<Ticket, { kind: "invitation" }> => {
    const ticket = usableTicket(store, value);
    if (ticket.kind !== "invitation") {
      throw new ApiError(400, "ticket_invalid_code", "This link signs in an existing account; it cannot sign up.");
    }
    return ticket;
  };

  const applySignUpFields = (req: Request, client: ClientRecord, body: Record<string, unknown>) => {
    const signUp = client.signUp;
    if (!signUp) throw new ApiError(404, "resource_not_found", "Sign-up not found");
    if (str(body.strategy) === "ticket" && str(body.ticket) && !signUp.ticket) {
      // An invitation link: its address is verified by the ticket itself.
      const ticket = invitationTicket(str(body.ticket));
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
    const email = str(body.email_address)?.trim().toLowerCase();
    if (email !== undefined && email !== null && email !== signUp.email) {
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
    const password = str(body.password);
    if (password !== null) {
      if (password.length < 8) {
        throw new ApiError(
          422,
          "form_password_length_too_short",
          "Passwords must be 8 characters or more.",
          "password",
        );
      }
      signUp.passwordHash = hashPassword(password);
    }
    applySignUpIdentifiers(store, signUp, body);
    const first = str(body.first_name);
    const last = str(body.last_name);
    if (first !== null) signUp.firstName = first.trim().slice(0, 100) || null;
    if (last !== null) signUp.lastName = last.trim().slice(0, 100) || null;
    client.updatedAt = Date.now();
    completeSignUpIfReady(req, client, signUp);
    store.changed();
  };

  /** A verified address and a password make the user; an invitation ticket then makes them a member. */
  const completeSignUpIfReady = (req: Request, client: ClientRecord, signUp: SignUpRecord) => {
    if (!signUp.email || !signUp.passwordHash || signUp.emailVerification !== "verified" || signUp.createdUserId) {
      return;
    }
    if (!signUpPhoneReady(signUp)) return;
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
    const ticket = signUp.ticket ? invitationTicket(signUp.ticket) : null;
    const user = store.createUser({
      email: signUp.email,
      passwordHash: signUp.passwordHash,
      firstName: signUp.firstName,
      lastName: signUp.lastName,
    });
    carrySignUpIdentifiers(signUp, user);
    if (ticket) redeemTicket(store, ticket, user.id);
    // An external id the Backend API set on the sign-up (`PATCH /v1/sign_ups/:id`) is the user's.
    if (signUp.externalId) user.externalId = signUp.externalId;
    const session = finishSignIn(req, client, user.id);
    signUp.status = "complete";
    signUp.createdUserId = user.id;
    signUp.createdSessionId = session.id;
  };

  route("POST", "/v1/client/sign_ups", (req, res) => {
    refuseIfSignedIn(req);
    const client = ensureClient(req, res);
    client.signUp = {
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
    applySignUpFields(req, client, req.body ?? {});
    return envelope(req, res, client, signUpJSON(client.signUp, store));
  });

  const currentSignUp = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    if (!client.signUp || client.signUp.id !== req.params.id) {
      throw new ApiError(404, "resource_not_found", "Sign-up not found");
    }
    return { client, signUp: client.signUp };
  };

  route("GET", "/v1/client/sign_ups/:id", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  route("PATCH", "/v1/client/sign_ups/:id", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    applySignUpFields(req, client, req.body ?? {});
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  route("POST", "/v1/client/sign_ups/:id/prepare_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    if (str(req.body?.strategy) === "email_link") {
      prepareSignUpEmailLink(fapi, req, client, signUp);
      return envelope(req, res, client, signUpJSON(signUp, store));
    }
    if (str(req.body?.strategy) === "phone_code") {
      preparePhoneVerification(store, signUp);
      return envelope(req, res, client, signUpJSON(signUp, store));
    }
    if (!signUp.email) throw new ApiError(422, "form_param_missing", "Enter your email address.", "email_address");
    if (signUp.emailVerification !== "verified") {
      signUp.emailVerification = "unverified";
      signUp.emailVerificationStrategy = "email_code";
      // The code Clerk emails (always the test code): an app's tests read it from `email.created`.
      const to = { address: signUp.email, emailAddressId: null, userId: null };
      store.send(verificationCodeEmail(store, req.get("user-agent") ?? null, to, TEST_EMAIL_CODE));
    }
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  route("POST", "/v1/client/sign_ups/:id/attempt_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    if (str(req.body?.strategy) === "phone_code") {
      attemptPhoneVerification(req, signUp);
    } else {
      if (!isSentCode(req.body?.code)) {
        throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
      }
      signUp.emailVerification = "verified";
    }
    completeSignUpIfReady(req, client, signUp);
    store.changed();
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  // Tickets: the link in an invitation or sign-in token lands on the app's
  // sign-up or sign-in page with the ticket, where Clerk's components redeem it.
  route("GET", "/v1/tickets/accept", (req, res) => {
    const ticket = str(req.query.ticket) ?? str(req.query.__clerk_ticket) ?? "";
    const found = lookUpTicket(store, ticket);
    const invitation = found?.kind === "invitation" ? found.invitation : null;
    // An unknown or spent ticket goes to sign-in too, whose component shows Clerk's error.
    const status = invitation && !store.userByEmail(invitation.email) ? "sign_up" : "sign_in";
    const landing = invitation?.redirectUrl ?? (status === "sign_up" ? SIGN_UP_URL : SIGN_IN_URL);
    const params = new URLSearchParams({ __clerk_ticket: ticket, __clerk_status: status });
    res.setHeader("Cache-Control", "no-store");
    res.redirect(303, `${landing}${landing.includes("?") ? "&" : "?"}${params}`);
  });

  return { completeSignUpIfReady };
}
