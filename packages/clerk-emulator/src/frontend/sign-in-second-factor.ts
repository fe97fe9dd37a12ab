import type { Request, Response } from "express";
import { signInJSON } from "../json";
import { str } from "../http/routing";
import type { ClientRecord, SignInRecord } from "../state/store";
import {
  askForSecondFactor,
  attemptSignInSecondFactor,
  completeSignIn,
  requireSignInStatus,
  resetForgottenPassword,
  signInUser,
} from "../domain/sign-ins";
import { prepareSecondFactor } from "../domain/mfa";
import { attemptClientTrustCode, prepareClientTrustCode } from "../domain/client-trust";
import type { FrontendContext, Route } from "./context";

type CurrentSignIn = (req: Request, res: Response) => { client: ClientRecord; signIn: SignInRecord };

/** After the first factor: the second factor, and the new password of a "forgot password" sign-in. */
export function registerSecondFactorRoutes(route: Route, fapi: FrontendContext, currentSignIn: CurrentSignIn): void {
  const { store, envelope, finishSignIn } = fapi;

  // TOTP and backup codes need no preparing (the person reads the code off their app or their list): only a
  // kind that sends its code (a text message to a number reserved for it, `sms.created`) can be prepared.
  // A new browser's client-trust step (domain/client-trust.ts) is a second factor too: an emailed code.
  route("POST", "/v1/client/sign_ins/:id/prepare_second_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireSignInStatus(signIn, "needs_second_factor", "needs_client_trust");
    const strategy = str(req.body?.strategy);
    const user = signInUser(store, signIn);
    const userAgent = req.get("user-agent") ?? null;
    if (signIn.status === "needs_client_trust") prepareClientTrustCode(store, signIn, user, strategy, userAgent);
    else
      prepareSecondFactor(store, signIn, user, strategy, { phoneNumberId: str(req.body?.phone_number_id), userAgent });
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_second_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireSignInStatus(signIn, "needs_second_factor", "needs_client_trust");
    const user = signInUser(store, signIn);
    const [strategy, code] = [str(req.body?.strategy), str(req.body?.code)];
    // The client-trust code proves the browser, not a second factor of the person: the session's `fva` counts the first factor only.
    const twoFactor = signIn.status === "needs_second_factor";
    if (twoFactor) attemptSignInSecondFactor(store, signIn, user, strategy, code);
    else attemptClientTrustCode(store, signIn, strategy, code);
    completeSignIn(store, signIn, finishSignIn(req, client, user.id, twoFactor).id);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  // "Forgot password?": after the reset code (reset_password_email_code), the new password; then, as after
  // any first factor, the second factor if the person has one, else the session.
  route("POST", "/v1/client/sign_ins/:id/reset_password", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireSignInStatus(signIn, "needs_new_password");
    const user = signInUser(store, signIn);
    const signOutOthers = req.body?.sign_out_of_other_sessions;
    resetForgottenPassword(store, user, str(req.body?.password), signOutOthers === true || signOutOthers === "true");
    if (!askForSecondFactor(store, signIn, user)) {
      completeSignIn(store, signIn, finishSignIn(req, client, user.id).id);
    }
    return envelope(req, res, client, signInJSON(store, signIn));
  });
}
