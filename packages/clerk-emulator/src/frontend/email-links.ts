import type { Request, Response } from "express";
import { newId } from "../state/ids";
import { emailLinkEmail, type EmailLinkFlow } from "../domain/messages";
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
import type { FrontendContext, Route } from "./context";
import { allowedRedirect } from "./redirects";

/** How long an emailed link works: Clerk's email links last ten minutes. */
export const EMAIL_LINK_TTL_MINUTES = 10;

/** What opening a link did, as clerk-js's `handleEmailLinkVerification` reads `__clerk_status`. */
type LinkOutcome = { status: "verified" | "expired" | "failed"; createdSessionId: string | null };

const linksOf = (fapi: FrontendContext) => fapi.store.state.emailLinks;

/** The `redirect_url` a link lands on: an allowed origin's, checked now (before anything is sent), or none. */
function landingOf(fapi: FrontendContext, req: Request): string | null {
  const wanted = str(req.body?.redirect_url);
  return wanted ? allowedRedirect(req, fapi, wanted).toString() : null;
}

/** Makes a link for `fields` and emails it (`email.created`): `<Frontend API>/v1/verify?token=…`. */
function sendLink(
  fapi: FrontendContext,
  req: Request,
  flow: EmailLinkFlow,
  fields: Pick<EmailLinkRecord, "clientId" | "attemptId" | "userId" | "emailAddressId" | "address" | "redirectUrl">,
) {
  const now = Date.now();
  const links = linksOf(fapi);
  // Links long dead are forgotten; a day's worth stay to answer `expired` rather than "unknown".
  fapi.store.state.emailLinks = links.filter((l) => l.expiresAt > now - 86_400_000);
  const token = newId("elt", 40);
  fapi.store.state.emailLinks.push({
    token,
    flow,
    ...fields,
    expiresAt: now + EMAIL_LINK_TTL_MINUTES * 60_000,
    usedAt: null,
  });
  const url = `${fapi.frontendApiUrl(req)}/v1/verify?token=${token}`;
  const to = { address: fields.address, emailAddressId: fields.emailAddressId, userId: fields.userId };
  fapi.store.send(emailLinkEmail(fapi.store, req.get("user-agent") ?? null, to, flow, url, EMAIL_LINK_TTL_MINUTES));
  fapi.store.changed();
}

/** A link strategy the instance does not offer for verifying addresses: Clerk's 422 for a strategy not allowed. */
function refuseUnlessLinkVerification(fapi: FrontendContext) {
  if (fapi.store.settings.emailLinkVerification) return;
  throw new ApiError(
    422,
    "form_param_value_invalid",
    "is invalid",
    "strategy",
    "email_link does not match one of the allowed values for parameter strategy",
  );
}

/** Sign-in, first factor `email_link`: the link goes to the address asked for (one of the user's verified ones), else the primary. */
export function prepareSignInEmailLink(
  fapi: FrontendContext,
  req: Request,
  client: ClientRecord,
  signIn: SignInRecord,
) {
  const user = signIn.userId ? fapi.store.user(signIn.userId) : null;
  if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
  const redirectUrl = landingOf(fapi, req);
  const wanted = str(req.body?.email_address_id);
  const email = user.emails.find((e) => e.id === wanted && e.verified) ?? { id: user.emailId, email: user.email };
  signIn.firstFactorStrategy = "email_link";
  signIn.firstFactorStatus = "unverified";
  sendLink(fapi, req, "sign_in", {
    clientId: client.id,
    attemptId: signIn.id,
    userId: user.id,
    emailAddressId: email.id,
    address: email.email,
    redirectUrl,
  });
}

/** Sign-up, verifying its address by link (when the instance verifies addresses by link). */
export function prepareSignUpEmailLink(
  fapi: FrontendContext,
  req: Request,
  client: ClientRecord,
  signUp: SignUpRecord,
) {
  refuseUnlessLinkVerification(fapi);
  if (!signUp.email) throw new ApiError(422, "form_param_missing", "Enter your email address.", "email_address");
  const redirectUrl = landingOf(fapi, req);
  if (signUp.emailVerification === "verified") return;
  signUp.emailVerification = "unverified";
  signUp.emailVerificationStrategy = "email_link";
  sendLink(fapi, req, "sign_up", {
    clientId: client.id,
    attemptId: signUp.id,
    userId: null,
    emailAddressId: null,
    address: signUp.email,
    redirectUrl,
  });
}

/** An address the signed-in person added, verified by link (when the instance verifies addresses by link). */
export function prepareEmailAddressLink(fapi: FrontendContext, req: Request, user: UserRecord, email: EmailRecord) {
  refuseUnlessLinkVerification(fapi);
  const redirectUrl = landingOf(fapi, req);
  if (email.verified) return;
  sendLink(fapi, req, "email_address", {
    clientId: null,
    attemptId: email.id,
    userId: user.id,
    emailAddressId: email.id,
    address: email.email,
    redirectUrl,
  });
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
    const client = link.clientId ? store.client(link.clientId) : null;
    const signIn = client?.signIn;
    const user = link.userId ? store.user(link.userId) : null;
    const stillTheirs = user?.emails.some(
      (e) => e.id === link.emailAddressId && e.email === link.address && e.verified,
    );
    if (!client || !signIn || signIn.id !== link.attemptId || !user || !stillTheirs) return failed;
    if (signIn.status !== "needs_first_factor" || signIn.firstFactorStrategy !== "email_link") return failed;
    const session = fapi.finishSignIn(req, client, user.id);
    signIn.status = "complete";
    signIn.firstFactorStatus = "verified";
    signIn.createdSessionId = session.id;
    client.updatedAt = Date.now();
    return { status: "verified", createdSessionId: session.id };
  };

  const verifySignUp = (req: Request, link: EmailLinkRecord): LinkOutcome => {
    const client = link.clientId ? store.client(link.clientId) : null;
    const signUp = client?.signUp;
    if (!client || !signUp || signUp.id !== link.attemptId || signUp.email !== link.address) return failed;
    if (signUp.emailVerification !== "unverified" || signUp.emailVerificationStrategy !== "email_link") return failed;
    signUp.emailVerification = "verified";
    try {
      completeSignUp(req, client, signUp);
    } catch (error) {
      // The address was taken, or the invitation revoked, meanwhile: the link cannot finish this sign-up.
      if (!(error instanceof ApiError)) throw error;
      signUp.emailVerification = "unverified";
      return failed;
    }
    client.updatedAt = Date.now();
    return { status: "verified", createdSessionId: signUp.createdSessionId };
  };

  const verifyEmailAddress = (link: EmailLinkRecord): LinkOutcome => {
    const user = link.userId ? store.user(link.userId) : null;
    const email = user?.emails.find((e) => e.id === link.attemptId && e.email === link.address);
    if (!user || !email) return failed;
    if (!email.verified) {
      if (store.userByEmail(email.email)) return failed;
      email.verified = true;
      email.updatedAt = Date.now();
      user.updatedAt = email.updatedAt;
    }
    return { status: "verified", createdSessionId: null };
  };

  const open = (req: Request, link: EmailLinkRecord): LinkOutcome => {
    if (link.usedAt !== null) return failed;
    link.usedAt = Date.now();
    if (link.expiresAt <= link.usedAt) {
      markExpired(link);
      return { status: "expired", createdSessionId: null };
    }
    if (link.flow === "sign_in") return verifySignIn(req, link);
    if (link.flow === "sign_up") return verifySignUp(req, link);
    return verifyEmailAddress(link);
  };

  /** The sign-in or sign-up waiting for a link that lapsed reads `expired`, which ends clerk-js's polling. */
  const markExpired = (link: EmailLinkRecord) => {
    const client = link.clientId ? store.client(link.clientId) : null;
    if (link.flow === "sign_in" && client?.signIn?.id === link.attemptId && client.signIn.status !== "complete")
      client.signIn.firstFactorStatus = "expired";
    if (link.flow === "sign_up" && client?.signUp?.id === link.attemptId && client.signUp.status !== "complete")
      client.signUp.emailVerification = "expired";
  };

  route("GET", "/v1/verify", (req, res) => {
    const token = str(req.query.token);
    if (!token) throw new ApiError(400, "form_param_missing", "token is missing", "token");
    const link = linksOf(fapi).find((l) => l.token === token);
    if (!link) throw new ApiError(400, "form_param_value_invalid", "This link is invalid", "token");
    const outcome = open(req, link);
    store.changed();
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
