import type { Request, Response } from "express";
import { startImpersonation } from "../domain/actor-tokens";
import { redeemTicket } from "../domain/invitations";
import { signInJSON } from "../json";
import { ApiError, strategyNotAllowed } from "../domain/errors";
import { str } from "../http/routing";
import type { ClientRecord, SignInRecord, UserRecord } from "../state/store";
import { touchClient } from "../domain/sessions";
import { preparePhoneCode } from "../domain/sign-in-phone";
import { startOAuthSignIn } from "../domain/oauth-starts";
import { isOAuthStrategy } from "../domain/social-connections";
import {
  askForSecondFactor,
  attemptSignInCode,
  attemptSignInPassword,
  completeSignIn,
  identifySignIn,
  prepareSignInFirstFactor,
  signInStrategies,
  signInTicket,
  startSignIn,
  type SignInStepInput,
} from "../domain/sign-ins";
import type { FrontendContext, Route } from "./context";
import { prepareSignInEmailLink } from "./email-links";
import { attemptPasskeySignIn, preparePasskeySignIn } from "./passkeys";
import { registerSecondFactorRoutes } from "./sign-in-second-factor";

/** Signing in: password, an email or SMS code, or a ticket (an invitation or sign-in link). */
export function registerSignInRoutes(route: Route, fapi: FrontendContext): void {
  const { store, ensureClient, envelope, finishSignIn, refuseIfSignedIn, clientMeta } = fapi;

  /** The first factor is verified: a user with two-factor on is asked for it, anyone else is signed in. */
  const afterFirstFactor = (req: Request, client: ClientRecord, signIn: SignInRecord, user: UserRecord) => {
    if (askForSecondFactor(store, signIn, user)) return;
    completeSignIn(store, signIn, finishSignIn(req, client, user.id).id);
  };

  const attemptPassword = (req: Request, client: ClientRecord, signIn: SignInRecord) => {
    const user = attemptSignInPassword(store, signIn, str(req.body?.password));
    afterFirstFactor(req, client, signIn, user);
  };

  /** Where a code is to go (`email_address_id`, `phone_number_id`) and the browser asking. */
  const stepInput = (req: Request): SignInStepInput => ({
    emailAddressId: str(req.body?.email_address_id),
    phoneNumberId: str(req.body?.phone_number_id),
    userAgent: req.get("user-agent") ?? null,
  });

  route("POST", "/v1/client/sign_ins", (req, res) => {
    // Clerk's order: the single-session check (a multi-session instance has none), then the strategy, then the identifier.
    refuseIfSignedIn(req);
    const strategy = str(req.body?.strategy);
    if (strategy !== null && !signInStrategies(store).includes(strategy)) {
      throw strategyNotAllowed(strategy);
    }
    const identifier = str(req.body?.identifier)?.trim() ?? null;
    if (identifier === "" && strategy !== "ticket") {
      throw new ApiError(422, "form_param_nil", "Enter email address.", "identifier");
    }
    const client = ensureClient(req, res);
    const signIn = startSignIn(store, client, identifier);
    if (strategy === "ticket") {
      // An invitation, sign-in or impersonation link: the ticket alone signs its user in.
      const { userId, actorToken, ticket } = signInTicket(
        store,
        client,
        str(req.body?.ticket),
        clientMeta(req, client),
      );
      if (ticket) redeemTicket(store, ticket, userId);
      const session = finishSignIn(req, client, userId);
      if (actorToken) startImpersonation(store, session, actorToken);
      completeSignIn(store, signIn, session.id, {
        identifier: store.user(userId)?.email ?? null,
        userId,
        firstFactorStrategy: "ticket",
        firstFactorStatus: "verified",
      });
    } else if (isOAuthStrategy(strategy)) {
      // A social connection: Clerk answers with the provider's authorize URL, where clerk-js sends the browser.
      startOAuthSignIn(store, signIn, strategy, str(req.body?.redirect_url), fapi.frontendApiUrl(req));
    } else if (strategy === "passkey" && !identifier) {
      // clerk-js's discoverable passkey flow: no identifier, the authenticator picks the account.
      preparePasskeySignIn(fapi, req, signIn);
    } else if (identifier) {
      // An email address, a username or a phone number.
      const user = identifySignIn(store, client, signIn, identifier, clientMeta(req, client));
      if (str(req.body?.password) !== null || strategy === "password") {
        attemptPassword(req, client, signIn);
      } else if (strategy === "email_code") {
        // Clerk prepares a code factor as part of creating the sign-in (the code is always TEST_EMAIL_CODE).
        prepareSignInFirstFactor(store, signIn, "email_code", stepInput(req));
      } else if (strategy === "email_link") {
        // Clerk sends the link as it creates the sign-in (frontend/email-links.ts).
        prepareSignInEmailLink(fapi, req, client, signIn);
      } else if (strategy === "passkey") {
        preparePasskeySignIn(fapi, req, signIn);
      } else if (strategy === "phone_code") {
        preparePhoneCode(store, signIn, user, stepInput(req).phoneNumberId);
      }
    }
    // The client changed as the sign-in began, whatever its steps since set.
    touchClient(store, client, signIn.createdAt);
    return envelope(req, res, client, signInJSON(store, signIn));
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
    const strategy = str(req.body?.strategy);
    if (strategy === "email_link") {
      prepareSignInEmailLink(fapi, req, client, signIn);
    } else if (strategy === "passkey") {
      preparePasskeySignIn(fapi, req, signIn);
    } else {
      prepareSignInFirstFactor(store, signIn, strategy ?? "email_code", stepInput(req));
    }
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    const strategy = str(req.body?.strategy);
    if (strategy === "password") {
      attemptPassword(req, client, signIn);
    } else if (strategy === "email_code" || strategy === "reset_password_email_code" || strategy === "phone_code") {
      const user = attemptSignInCode(store, signIn, strategy, req.body?.code);
      // The forgotten password's code proves the address: the person now chooses a new password (reset_password).
      if (strategy !== "reset_password_email_code") afterFirstFactor(req, client, signIn, user);
    } else if (strategy === "passkey") {
      attemptPasskeySignIn(fapi, req, client, signIn);
    } else {
      throw new ApiError(422, "strategy_for_user_invalid", "That sign-in method is not available.", "strategy");
    }
    return envelope(req, res, client, signInJSON(store, signIn));
  });
}
