import type { Request, Response } from "express";
import { signInJSON } from "../json";
import { checkSecondFactor, prepareSecondFactor, twoFactorEnabled } from "../domain/mfa";
import { validateNewPassword } from "../domain/passwords";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { hashPassword, type ClientRecord, type SignInRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";

/** A step asked for out of turn: Clerk's 400 for a sign-in not at that step. */
export function requireStatus(signIn: SignInRecord, status: SignInRecord["status"]): void {
  if (signIn.status !== status) {
    throw new ApiError(
      400,
      "sign_in_status_invalid",
      "This sign-in is not at that step.",
      undefined,
      `The sign-in's status is ${signIn.status}; this request needs ${status}.`,
    );
  }
}

type CurrentSignIn = (req: Request, res: Response) => { client: ClientRecord; signIn: SignInRecord };

/** After the first factor: the second factor, and the new password of a "forgot password" sign-in. */
export function registerSecondFactorRoutes(route: Route, fapi: FrontendContext, currentSignIn: CurrentSignIn): void {
  const { store, envelope, finishSignIn } = fapi;

  const userOf = (signIn: SignInRecord) => {
    const user = signIn.userId ? store.user(signIn.userId) : null;
    if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
    return user;
  };

  // TOTP and backup codes need no preparing (the person reads the code off their app or their list): only a
  // kind that sends its code (a text message) can be prepared.
  route("POST", "/v1/client/sign_ins/:id/prepare_second_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireStatus(signIn, "needs_second_factor");
    const strategy = str(req.body?.strategy);
    prepareSecondFactor(store, userOf(signIn), strategy, req.get("user-agent") ?? null);
    signIn.secondFactor = { strategy: strategy!, status: "unverified" };
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_second_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireStatus(signIn, "needs_second_factor");
    const user = userOf(signIn);
    const strategy = str(req.body?.strategy);
    try {
      checkSecondFactor(store, user, strategy, str(req.body?.code));
    } catch (error) {
      if (strategy) signIn.secondFactor = { strategy, status: "unverified" };
      store.changed();
      throw error;
    }
    signIn.secondFactor = { strategy: strategy!, status: "verified" };
    signIn.status = "complete";
    signIn.createdSessionId = finishSignIn(req, client, user.id, true).id;
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  // "Forgot password?": after the reset code (reset_password_email_code), the new password; then, as after
  // any first factor, the second factor if the person has one, else the session.
  route("POST", "/v1/client/sign_ins/:id/reset_password", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    requireStatus(signIn, "needs_new_password");
    const user = userOf(signIn);
    const password = validateNewPassword(str(req.body?.password), "password");
    user.passwordHash = hashPassword(password);
    user.passwordUpdatedAt = Date.now();
    user.updatedAt = user.passwordUpdatedAt;
    const signOutOthers = req.body?.sign_out_of_other_sessions;
    if (signOutOthers === true || signOutOthers === "true") {
      for (const s of store.state.sessions) {
        if (s.userId === user.id && s.status === "active") store.endSession(s, "revoked");
      }
    }
    if (twoFactorEnabled(store, user)) {
      signIn.status = "needs_second_factor";
    } else {
      signIn.status = "complete";
      signIn.createdSessionId = finishSignIn(req, client, user.id).id;
    }
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });
}
