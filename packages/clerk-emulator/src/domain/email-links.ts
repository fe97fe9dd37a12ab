import { newId } from "../state/ids";
import type {
  ClientRecord,
  EmailLinkRecord,
  EmailRecord,
  SignInRecord,
  SignUpRecord,
  Store,
  UserRecord,
} from "../state/store";
import { markEmailVerified } from "./email-addresses";
import { ApiError, strategyNotAllowed } from "./errors";
import { emailLinkEmail, type EmailLinkFlow } from "./messages";
import { markFirstFactorSent } from "./sign-ins";
import { markSignUpEmailSent, requireSignUpEmail } from "./sign-ups";

/**
 * Emailed links (Clerk's "magic links"): one signs in, verifies a sign-up's
 * address, or verifies an address added to a profile. A link works once, for
 * ten minutes, and only while its sign-in or sign-up waits for it.
 */

/** How long an emailed link works: Clerk's email links last ten minutes. */
export const EMAIL_LINK_TTL_MINUTES = 10;

/**
 * How a link is sent: from the Frontend API's URL (the link is `<it>/v1/verify?token=…`), for the browser
 * asking (its User-Agent), to land on `redirectUrl` once opened (null: the Frontend API's own page).
 */
export type LinkSending = { frontendApiUrl: string; userAgent: string | null; redirectUrl: string | null };

/** Makes a link for `fields` and emails it (`email.created`). */
function sendLink(
  store: Store,
  flow: EmailLinkFlow,
  fields: Pick<EmailLinkRecord, "clientId" | "attemptId" | "userId" | "emailAddressId" | "address" | "redirectUrl">,
  sending: LinkSending,
): void {
  const now = Date.now();
  const token = newId("elt", 40);
  store.write((state) => {
    // Links long dead are forgotten; a day's worth stay to answer `expired` rather than "unknown".
    state.emailLinks = state.emailLinks.filter((l) => l.expiresAt > now - 86_400_000);
    state.emailLinks.push({ token, flow, ...fields, expiresAt: now + EMAIL_LINK_TTL_MINUTES * 60_000, usedAt: null });
  });
  const url = `${sending.frontendApiUrl}/v1/verify?token=${token}`;
  const to = { address: fields.address, emailAddressId: fields.emailAddressId, userId: fields.userId };
  store.send(emailLinkEmail(store, sending.userAgent, to, flow, url, EMAIL_LINK_TTL_MINUTES));
}

/**
 * A link strategy the instance does not offer (`user_settings.attributes.email_address.verifications`
 * for addresses, `first_factors` for signing in): Clerk's 422 for a strategy not allowed.
 */
export function refuseUnlessLinkVerification(store: Store, use: "verification" | "sign_in" = "verification"): void {
  const { emailLinkVerification, emailLinkSignIn } = store.settings.instance;
  if (use === "verification" ? emailLinkVerification : emailLinkSignIn) return;
  throw strategyNotAllowed("email_link");
}

/**
 * Sign-in, first factor `email_link`: the sign-in waits for the link, which goes to
 * the address asked for (`emailAddressId`, one of the user's verified ones), else the primary.
 */
export function sendSignInEmailLink(
  store: Store,
  client: ClientRecord,
  signIn: SignInRecord,
  user: UserRecord,
  emailAddressId: string | null,
  sending: LinkSending,
): void {
  const email = user.emails.find((e) => e.id === emailAddressId && e.verified) ?? {
    id: user.emailId,
    email: user.email,
  };
  const fields = {
    clientId: client.id,
    attemptId: signIn.id,
    userId: user.id,
    emailAddressId: email.id,
    address: email.email,
    redirectUrl: sending.redirectUrl,
  };
  refuseUnlessLinkVerification(store, "sign_in");
  store.write(() => {
    markFirstFactorSent(store, signIn, "email_link");
    sendLink(store, "sign_in", fields, sending);
  });
}

/** Sign-up, its address verified by link: unless verified already, it waits for the link sent to it. */
export function sendSignUpEmailLink(
  store: Store,
  client: ClientRecord,
  signUp: SignUpRecord,
  sending: LinkSending,
): void {
  const address = requireSignUpEmail(signUp);
  if (signUp.emailVerification === "verified") return;
  const fields = {
    clientId: client.id,
    attemptId: signUp.id,
    userId: null,
    emailAddressId: null,
    address,
    redirectUrl: sending.redirectUrl,
  };
  store.write(() => {
    markSignUpEmailSent(store, signUp, "email_link");
    sendLink(store, "sign_up", fields, sending);
  });
}

/** An address the signed-in person added, verified by link: unless verified already, the link goes to it. */
export function sendEmailAddressLink(store: Store, user: UserRecord, email: EmailRecord, sending: LinkSending): void {
  if (email.verified) return;
  const fields = {
    clientId: null,
    attemptId: email.id,
    userId: user.id,
    emailAddressId: email.id,
    address: email.email,
    redirectUrl: sending.redirectUrl,
  };
  sendLink(store, "email_address", fields, sending);
}

/** The link a token names, or Clerk's 400. */
export function emailLinkByToken(store: Store, token: string): EmailLinkRecord {
  const link = store.state.emailLinks.find((l) => l.token === token);
  if (!link) throw new ApiError(400, "form_param_value_invalid", "This link is invalid", "token");
  return link;
}

/**
 * Opens a link: it is used up now. `used` when it had been opened before;
 * `expired` when its time had passed (the sign-in or sign-up waiting for it
 * then reads `expired`, which ends clerk-js's polling); else `open`, for what
 * it was sent for to be verified.
 */
export function openEmailLink(store: Store, link: EmailLinkRecord): "used" | "expired" | "open" {
  if (link.usedAt !== null) return "used";
  return store.write(() => {
    const usedAt = Date.now();
    link.usedAt = usedAt;
    if (link.expiresAt > usedAt) return "open";
    const client = link.clientId ? store.client(link.clientId) : null;
    if (link.flow === "sign_in" && client?.signIn?.id === link.attemptId && client.signIn.status !== "complete")
      client.signIn.firstFactorStatus = "expired";
    if (link.flow === "sign_up" && client?.signUp?.id === link.attemptId && client.signUp.status !== "complete")
      client.signUp.emailVerification = "expired";
    return "expired";
  });
}

/**
 * The sign-in an opened link signs in: still its client's, waiting for this
 * link, for a user who still has the address; null when it cannot.
 */
export function signInAwaitingLink(
  store: Store,
  link: EmailLinkRecord,
): { client: ClientRecord; signIn: SignInRecord; user: UserRecord } | null {
  const client = link.clientId ? store.client(link.clientId) : null;
  const signIn = client?.signIn;
  const user = link.userId ? store.user(link.userId) : null;
  const stillTheirs = user?.emails.some((e) => e.id === link.emailAddressId && e.email === link.address && e.verified);
  if (!client || !signIn || signIn.id !== link.attemptId || !user || !stillTheirs) return null;
  if (signIn.status !== "needs_first_factor" || signIn.firstFactorStrategy !== "email_link") return null;
  return { client, signIn, user };
}

/** The sign-up whose address an opened link verifies: still its client's, waiting for this link; null when it cannot. */
export function signUpAwaitingLink(
  store: Store,
  link: EmailLinkRecord,
): { client: ClientRecord; signUp: SignUpRecord } | null {
  const client = link.clientId ? store.client(link.clientId) : null;
  const signUp = client?.signUp;
  if (!client || !signUp || signUp.id !== link.attemptId || signUp.email !== link.address) return null;
  if (signUp.emailVerification !== "unverified" || signUp.emailVerificationStrategy !== "email_link") return null;
  return { client, signUp };
}

/**
 * The profile's address an opened link verifies: false when it is no longer
 * the user's, or another account verified it meanwhile.
 */
export function verifyEmailAddressByLink(store: Store, link: EmailLinkRecord): boolean {
  const user = link.userId ? store.user(link.userId) : null;
  const email = user?.emails.find((e) => e.id === link.attemptId && e.email === link.address);
  if (!user || !email) return false;
  if (email.verified) return true;
  if (store.userByEmail(email.email)) return false;
  markEmailVerified(store, user, email);
  return true;
}
