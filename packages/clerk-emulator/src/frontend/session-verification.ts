import type { Request, Response } from "express";
import { sessionJSON, verificationJSON } from "../json";
import { prepareSecondFactor, secondFactorsOf } from "../domain/mfa";
import { ApiError, valueNotAllowed } from "../domain/errors";
import { str } from "../http/routing";
import type { SessionRecord, SessionVerificationRecord, UserRecord } from "../state/store";
import {
  attemptVerificationFirstFactor,
  attemptVerificationSecondFactor,
  prepareVerificationEmailCode,
  sessionVerificationAt,
  startSessionVerification,
} from "../domain/session-verifications";
import type { FrontendContext, Route } from "./context";

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

  // Reading one session (`GET /v1/client/sessions/:id`) is in client.ts.
  // A person with no second factor is asked for the first, whatever the level (Clerk's fallback).
  route("POST", "/v1/client/sessions/:id/verify", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const asked = str(req.body?.level);
    if (!asked) throw new ApiError(422, "form_param_missing", "level must be included.", "level");
    if (!LEVELS.includes(asked as SessionVerificationRecord["level"])) throw valueNotAllowed("level", asked);
    startSessionVerification(store, session, user, asked as SessionVerificationRecord["level"]);
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/prepare_first_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = sessionVerificationAt(session, "needs_first_factor");
    if (str(req.body?.strategy) !== "email_code") {
      throw new ApiError(422, "form_param_value_invalid", "is invalid", "strategy", "Only email codes are prepared.");
    }
    const emailAddressId = str(req.body?.email_address_id);
    prepareVerificationEmailCode(store, v, user, emailAddressId, req.get("user-agent") ?? null);
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/attempt_first_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = sessionVerificationAt(session, "needs_first_factor");
    attemptVerificationFirstFactor(store, session, v, user, {
      strategy: str(req.body?.strategy),
      password: str(req.body?.password),
      code: req.body?.code,
    });
    return verificationReply(req, res, session, user);
  });

  // As at sign-in, TOTP and backup codes need no preparing; only a kind that sends its code (SMS) can be.
  route("POST", "/v1/client/sessions/:id/verify/prepare_second_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = sessionVerificationAt(session, "needs_second_factor");
    prepareSecondFactor(store, v, user, str(req.body?.strategy), {
      phoneNumberId: str(req.body?.phone_number_id),
      userAgent: req.get("user-agent") ?? null,
    });
    return verificationReply(req, res, session, user);
  });

  route("POST", "/v1/client/sessions/:id/verify/attempt_second_factor", (req, res) => {
    const { session, user } = sessionAndUser(req);
    const v = sessionVerificationAt(session, "needs_second_factor");
    attemptVerificationSecondFactor(store, session, v, user, str(req.body?.strategy), str(req.body?.code));
    return verificationReply(req, res, session, user);
  });
}
