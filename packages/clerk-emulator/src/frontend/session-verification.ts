import type { Request, Response } from "express";
import { newId } from "../state/ids";
import { sessionJSON, verificationJSON } from "../json";
import { verificationCodeEmail } from "../domain/messages";
import {
  checkSecondFactor,
  markFactorVerified,
  prepareSecondFactor,
  secondFactorsOf,
  twoFactorEnabled,
} from "../domain/mfa";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { verifyPassword, type SessionRecord, type SessionVerificationRecord, type UserRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";
import { TEST_EMAIL_CODE, isSentCode } from "../domain/verification-codes";

const LEVELS: SessionVerificationRecord["level"][] = ["first_factor", "second_factor", "multi_factor"];

/**
 * Reverification ("session verification"): the signed-in person proves a
 * factor again, so that a sensitive action finds the session's `fva` fresh.
 * The steps mirror a sign-in's: first factor (password or an email code),
 * then, for `multi_factor`, the second.
 */
export function registerSessionVerificationRoutes(route: Route, fapi: FrontendContext): void {
  const { store, currentClient, sessionOfClient, envelope, mintToken } = fapi;

  const sessionAndUser = (req: Request): { session: SessionRecord; user: UserRecord } => {
    const session = sessionOfClient(currentClient(req), req.params.id);
    const user = store.user(session.userId);
    if (session.status !== "active" || !user) throw new ApiError(401, "signed_out", "You are signed out");
    return { session, user };
  };

  const firstFactorsOf = (user: UserRecord) => [
    ...(user.passwordHash ? [{ strategy: "password" }] : []),
    ...user.emails
      .filter((e) => e.verified)
      .map((e) => ({
        strategy: "email_code",
        safe_identifier: e.email,
        email_address_id: e.id,
        primary: e.id === user.emailId,
      })),
  ];

  const verificationReply = (req: Request, res: Response, session: SessionRecord, user: UserRecord) => {
    const v = session.verification;
    if (!v) throw new ApiError(404, "resource_not_found", "No reverification was started for this session.");
    return envelope(req, res, currentClient(req), {
      object: "session_reverification",
      id: v.id,
      level: v.level,
      status: v.status,
      supported_first_factors: firstFactorsOf(user),
      supported_second_factors: secondFactorsOf(store, user),
      first_factor_verification: v.firstFactor ? verificationJSON(v.firstFactor.status, v.firstFactor.strategy) : null,
      second_factor_verification: v.secondFactor
        ? verificationJSON(v.secondFactor.status, v.secondFactor.strategy)
        : null,
      session: sessionJSON(store, session, mintToken(req, session)),
    });
  };

  const pending = (session: SessionRecord, status: SessionVerificationRecord["status"]) => {
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
  };

  // Reading one session (`GET /v1/client/sessions/:id`) is in client.ts.
  // A person with no second factor is asked for the first, whatever the level (Clerk's fallback).
  route("POST", "/v1/client/sessions/:id/verify", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const asked = str(req.body?.level);
    if (!asked) throw new ApiError(422, "form_param_missing", "level must be included.", "level");
    if (!LEVELS.includes(asked as SessionVerificationRecord["level"])) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "level",
        `${asked} does not match one of the allowed values for parameter level`,
      );
    }
    const level = twoFactorEnabled(store, user) ? (asked as SessionVerificationRecord["level"]) : "first_factor";
    session.verification = {
      id: newId("sessver"),
      level,
      status: level === "second_factor" ? "needs_second_factor" : "needs_first_factor",
      firstFactor: null,
      secondFactor: null,
      createdAt: Date.now(),
    };
    store.changed();
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/prepare_first_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = pending(session, "needs_first_factor");
    const strategy = str(req.body?.strategy);
    if (strategy !== "email_code") {
      throw new ApiError(422, "form_param_value_invalid", "is invalid", "strategy", "Only email codes are prepared.");
    }
    const wanted = str(req.body?.email_address_id) ?? user.emailId;
    const email = user.emails.find((e) => e.id === wanted && e.verified);
    if (!email) throw new ApiError(422, "form_param_value_invalid", "No such email address.", "email_address_id");
    store.send(
      verificationCodeEmail(
        store,
        req.get("user-agent") ?? null,
        { address: email.email, emailAddressId: email.id, userId: user.id },
        TEST_EMAIL_CODE,
      ),
    );
    v.firstFactor = { strategy, status: "unverified" };
    store.changed();
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/attempt_first_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = pending(session, "needs_first_factor");
    const strategy = str(req.body?.strategy);
    if (strategy === "password") {
      const password = str(req.body?.password);
      if (!password || !verifyPassword(password, user.passwordHash)) {
        v.firstFactor = { strategy, status: "failed" };
        store.changed();
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
      if (!isSentCode(req.body?.code)) throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
    } else {
      throw new ApiError(
        422,
        "strategy_for_user_invalid",
        "That verification strategy is not valid for this account.",
        "strategy",
      );
    }
    v.firstFactor = { strategy, status: "verified" };
    v.status = v.level === "multi_factor" ? "needs_second_factor" : "complete";
    markFactorVerified(session, "first");
    store.changed();
    return verificationReply(req, res, session, user);
  });

  // As at sign-in, TOTP and backup codes need no preparing; only a kind that sends its code (SMS) can be.
  route("POST", "/v1/client/sessions/:id/verify/prepare_second_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = pending(session, "needs_second_factor");
    const strategy = str(req.body?.strategy);
    prepareSecondFactor(store, user, strategy, req.get("user-agent") ?? null);
    v.secondFactor = { strategy: strategy!, status: "unverified" };
    store.changed();
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/attempt_second_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = pending(session, "needs_second_factor");
    const strategy = str(req.body?.strategy);
    checkSecondFactor(store, user, strategy, str(req.body?.code));
    v.secondFactor = { strategy: strategy!, status: "verified" };
    v.status = "complete";
    markFactorVerified(session, "second");
    store.changed();
    return verificationReply(req, res, session, user);
  });
}
