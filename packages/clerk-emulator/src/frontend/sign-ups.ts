import type { Request, Response } from "express";
import { SIGN_IN_URL, SIGN_UP_URL } from "../json/environment";
import { lookUpTicket } from "../domain/invitations";
import { signUpJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { ClientRecord, SignUpRecord } from "../state/store";
import { refuseUnofferedOAuth, startOAuthSignUp } from "../domain/oauth-starts";
import { isOAuthStrategy } from "../domain/social-connections";
import type { FrontendContext, Route } from "./context";
import { prepareSignUpEmailLink, type CompleteSignUp } from "./email-links";
import { attemptPhoneVerification, preparePhoneVerification } from "../domain/sign-up-identifiers";
import {
  attemptSignUpEmailCode,
  completeSignUp,
  createSignUpUser,
  prepareSignUpEmailCode,
  startSignUp,
  updateSignUp,
  type SignUpFields,
} from "../domain/sign-ups";

/** A sign-up's fields as the request gives them. */
function signUpFields(body: Record<string, unknown>): SignUpFields {
  return {
    strategy: str(body.strategy),
    ticket: str(body.ticket),
    emailAddress: str(body.email_address)?.trim().toLowerCase() ?? null,
    password: str(body.password),
    username: body.username,
    phoneNumber: body.phone_number,
    firstName: str(body.first_name),
    lastName: str(body.last_name),
    // clerk-js sends the checkbox as a form field: "true" or "false".
    legalAccepted:
      body.legal_accepted === undefined ? null : body.legal_accepted === true || body.legal_accepted === "true",
    unsafeMetadata: body.unsafe_metadata,
  };
}

/**
 * Signing up: email + password verified by a code (or an emailed link), or an invitation's ticket;
 * and the links tickets travel in. Gives back how a sign-up completes, for the email links' landing.
 */
export function registerSignUpRoutes(route: Route, fapi: FrontendContext): { completeSignUpIfReady: CompleteSignUp } {
  const { store, ensureClient, envelope, finishSignIn, refuseIfSignedIn } = fapi;

  /** A verified address and a password make the user, signed in at once; an invitation ticket makes them a member. */
  const completeSignUpIfReady = (req: Request, client: ClientRecord, signUp: SignUpRecord) => {
    const user = createSignUpUser(store, signUp);
    if (user) completeSignUp(store, signUp, user.id, finishSignIn(req, client, user.id).id);
  };

  route("POST", "/v1/client/sign_ups", (req, res) => {
    refuseIfSignedIn(req);
    const client = ensureClient(req, res);
    const fields = signUpFields(req.body ?? {});
    const redirectUrl = str(req.body?.redirect_url);
    // A social connection the instance does not offer is refused before any sign-up is made.
    if (isOAuthStrategy(fields.strategy)) refuseUnofferedOAuth(store, fields.strategy, redirectUrl);
    const signUp = startSignUp(store, client, fields);
    if (isOAuthStrategy(fields.strategy)) {
      // The provider's authorize URL, where clerk-js sends the browser.
      startOAuthSignUp(store, signUp, fields.strategy, redirectUrl, fapi.frontendApiUrl(req));
    }
    completeSignUpIfReady(req, client, signUp);
    return envelope(req, res, client, signUpJSON(signUp, store));
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
    updateSignUp(store, client, signUp, signUpFields(req.body ?? {}));
    completeSignUpIfReady(req, client, signUp);
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  route("POST", "/v1/client/sign_ups/:id/prepare_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    const strategy = str(req.body?.strategy);
    if (strategy === "email_link") prepareSignUpEmailLink(fapi, req, client, signUp);
    else if (strategy === "phone_code") preparePhoneVerification(store, signUp);
    else prepareSignUpEmailCode(store, signUp, req.get("user-agent") ?? null);
    return envelope(req, res, client, signUpJSON(signUp, store));
  });

  route("POST", "/v1/client/sign_ups/:id/attempt_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    if (str(req.body?.strategy) === "phone_code") {
      attemptPhoneVerification(store, signUp, req.body?.code);
    } else {
      attemptSignUpEmailCode(store, signUp, req.body?.code);
    }
    completeSignUpIfReady(req, client, signUp);
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
