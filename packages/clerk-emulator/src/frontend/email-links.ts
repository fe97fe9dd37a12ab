import type { Request, Response } from "express";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type {
  ClientRecord,
  EmailLinkRecord,
  EmailRecord,
  SignInRecord,
  SignUpRecord,
  UserRecord,
} from "../state/store";
import {
  emailLinkByToken,
  openEmailLink,
  refuseUnlessLinkVerification,
  sendEmailAddressLink,
  sendSignInEmailLink,
  sendSignUpEmailLink,
  signInAwaitingLink,
  signUpAwaitingLink,
  verifyEmailAddressByLink,
  type LinkSending,
} from "../domain/email-links";
import { touchClient } from "../domain/sessions";
import { completeSignIn, signInUser } from "../domain/sign-ins";
import { requireSignUpEmail, setSignUpEmailVerification } from "../domain/sign-ups";
import type { FrontendContext, Route } from "./context";
import { allowedRedirect } from "./redirects";

/** What opening a link did, as clerk-js's `handleEmailLinkVerification` reads `__clerk_status`. */
type LinkOutcome = { status: "verified" | "expired" | "failed"; createdSessionId: string | null };

/** The `redirect_url` a link lands on: an allowed origin's, checked now (before anything is sent), or none. */
function landingOf(fapi: FrontendContext, req: Request): string | null {
  const wanted = str(req.body?.redirect_url);
  return wanted ? allowedRedirect(req, fapi, wanted).toString() : null;
}

/** How this request's link is sent: from the Frontend API's URL as the browser reaches it, landing on `redirectUrl`. */
const sendingOf = (fapi: FrontendContext, req: Request, redirectUrl: string | null): LinkSending => ({
  frontendApiUrl: fapi.frontendApiUrl(req),
  userAgent: req.get("user-agent") ?? null,
  redirectUrl,
});

/** Sign-in, first factor `email_link`: the link goes to the address asked for (one of the user's verified ones), else the primary. */
export function prepareSignInEmailLink(
  fapi: FrontendContext,
  req: Request,
  client: ClientRecord,
  signIn: SignInRecord,
) {
  const user = signInUser(fapi.store, signIn);
  const redirectUrl = landingOf(fapi, req);
  const wanted = str(req.body?.email_address_id);
  sendSignInEmailLink(fapi.store, client, signIn, user, wanted, sendingOf(fapi, req, redirectUrl));
}

/** Sign-up, verifying its address by link (when the instance verifies addresses by link). */
export function prepareSignUpEmailLink(
  fapi: FrontendContext,
  req: Request,
  client: ClientRecord,
  signUp: SignUpRecord,
) {
  refuseUnlessLinkVerification(fapi.store);
  requireSignUpEmail(signUp);
  const redirectUrl = landingOf(fapi, req);
  sendSignUpEmailLink(fapi.store, client, signUp, sendingOf(fapi, req, redirectUrl));
}

/** An address the signed-in person added, verified by link (when the instance verifies addresses by link). */
export function prepareEmailAddressLink(fapi: FrontendContext, req: Request, user: UserRecord, email: EmailRecord) {
  refuseUnlessLinkVerification(fapi.store);
  const redirectUrl = landingOf(fapi, req);
  sendEmailAddressLink(fapi.store, user, email, sendingOf(fapi, req, redirectUrl));
}

export type CompleteSignUp = (req: Request, client: ClientRecord, signUp: SignUpRecord) => void;

/**
 * `GET /v1/verify?token=…`, where an emailed link lands. It verifies what the
 * link was sent for — the sign-in (a session on the client that started it, as
 * with `require_same_client` off), the sign-up, or the address — and sends the
 * browser to the link's `redirect_url` with `__clerk_status` (and
 * `__clerk_created_session`), or, without one, shows a page saying so. A link
 * works once, for ten minutes, and only while its sign-in or sign-up waits for it.
 */
export function registerEmailLinkRoutes(route: Route, fapi: FrontendContext, completeSignUp: CompleteSignUp): void {
  const { store } = fapi;
  const failed: LinkOutcome = { status: "failed", createdSessionId: null };

  const verifySignIn = (req: Request, link: EmailLinkRecord): LinkOutcome => {
    const awaiting = signInAwaitingLink(store, link);
    if (!awaiting) return failed;
    const { client, signIn, user } = awaiting;
    const session = fapi.finishSignIn(req, client, user.id);
    completeSignIn(store, signIn, session.id, { firstFactorStatus: "verified" });
    touchClient(store, client);
    return { status: "verified", createdSessionId: session.id };
  };

  const verifySignUp = (req: Request, link: EmailLinkRecord): LinkOutcome => {
    const awaiting = signUpAwaitingLink(store, link);
    if (!awaiting) return failed;
    const { client, signUp } = awaiting;
    setSignUpEmailVerification(store, signUp, "verified");
    try {
      completeSignUp(req, client, signUp);
    } catch (error) {
      // The address was taken, or the invitation revoked, meanwhile: the link cannot finish this sign-up.
      if (!(error instanceof ApiError)) throw error;
      setSignUpEmailVerification(store, signUp, "unverified");
      return failed;
    }
    touchClient(store, client);
    return { status: "verified", createdSessionId: signUp.createdSessionId };
  };

  const open = (req: Request, link: EmailLinkRecord): LinkOutcome => {
    const opened = openEmailLink(store, link);
    if (opened === "used") return failed;
    if (opened === "expired") return { status: "expired", createdSessionId: null };
    if (link.flow === "sign_in") return verifySignIn(req, link);
    if (link.flow === "sign_up") return verifySignUp(req, link);
    return verifyEmailAddressByLink(store, link) ? { status: "verified", createdSessionId: null } : failed;
  };

  route("GET", "/v1/verify", (req, res) => {
    const token = str(req.query.token);
    if (!token) throw new ApiError(400, "form_param_missing", "token is missing", "token");
    const link = emailLinkByToken(store, token);
    const outcome = open(req, link);
    res.setHeader("Cache-Control", "no-store");
    if (link.redirectUrl) return landOn(res, link.redirectUrl, outcome);
    return showOutcome(res, outcome);
  });
}

function landOn(res: Response, redirectUrl: string, outcome: LinkOutcome) {
  const target = new URL(redirectUrl);
  target.searchParams.set("__clerk_status", outcome.status);
  if (outcome.createdSessionId) target.searchParams.set("__clerk_created_session", outcome.createdSessionId);
  res.redirect(303, target.toString());
}

const OUTCOME_TEXT: Record<LinkOutcome["status"], string> = {
  verified: "Success! You can return to the original tab to continue.",
  expired: "This link has expired. Return to the original tab and ask for a new one.",
  failed: "This link is invalid or was already used. Return to the original tab and try again.",
};

/** Without a `redirect_url`, the Frontend API's own page says what happened. */
function showOutcome(res: Response, outcome: LinkOutcome) {
  res.status(200);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Security-Policy", "default-src 'none'");
  res.end(
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Email link</title></head>\n` +
      `<body><p data-clerk-status="${outcome.status}">${OUTCOME_TEXT[outcome.status]}</p></body></html>\n`,
  );
}
