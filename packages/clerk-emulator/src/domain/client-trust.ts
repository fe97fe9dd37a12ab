import type { ClientRecord, SignInRecord, Store, UserRecord } from "../state/store";
import { ApiError } from "./errors";
import { isSentCode, emailCode } from "./verification-codes";

/**
 * Client trust (Clerk's Device Trust, the dashboard switch `auth_config.client_trust` here): a password
 * proves who someone is, not that the browser is theirs. Where the switch is on, a sign-in by password on
 * a client where the person has never had a session (`client_trust_state: "new"`) waits at
 * `needs_client_trust` for a code emailed to the person's address, as a second factor; once it is given,
 * the client is known to them, and their next password sign-in there completes at once. Someone with
 * two-factor on is asked for that instead (a second factor proves the device too); a code or link first
 * factor, a social sign-in or a ticket already proves it; and the Backend API's `bypass_client_trust`
 * exempts a user.
 */

/** The email code a client-trust step asks for: to the person's primary address. */
export function clientTrustFactors(user: UserRecord) {
  return [{ strategy: "email_code", safe_identifier: user.email, email_address_id: user.emailId, primary: true }];
}

/** Whether the person has had a session on this client before: the client is known to them. */
export function clientKnowsUser(store: Store, client: ClientRecord, userId: string): boolean {
  return store.state.sessions.some((s) => s.clientId === client.id && s.userId === userId);
}

/** The sign-in's trust state, once its identifier names the person: `known` or `new` on this client. */
export function markClientTrustState(store: Store, client: ClientRecord, signIn: SignInRecord, userId: string): void {
  store.write(() => {
    signIn.clientTrustState = clientKnowsUser(store, client, userId) ? "known" : "new";
  });
}

/**
 * After a verified first factor and no two-factor: on a new client, a password sign-in waits at
 * `needs_client_trust` (true); else the person is to be signed in now (false).
 */
export function askForClientTrust(store: Store, signIn: SignInRecord, user: UserRecord): boolean {
  if (!store.settings.instance.clientTrust || user.bypassClientTrust) return false;
  if (signIn.firstFactorStrategy !== "password" || signIn.clientTrustState !== "new") return false;
  store.write(() => {
    signIn.status = "needs_client_trust";
  });
  return true;
}

/** The code a client-trust step needs, or Clerk's 422 for any other strategy. */
function requireEmailCode(strategy: string | null): void {
  if (strategy !== "email_code") {
    throw new ApiError(
      422,
      "strategy_for_user_invalid",
      "That verification strategy is not valid for this account.",
      "strategy",
    );
  }
}

/** `prepare_second_factor` at `needs_client_trust`: the code is emailed, and the step waits for it. */
export function prepareClientTrustCode(
  store: Store,
  signIn: SignInRecord,
  user: UserRecord,
  strategy: string | null,
  userAgent: string | null,
): void {
  requireEmailCode(strategy);
  emailCode(store, userAgent, { address: user.email, emailAddressId: user.emailId, userId: user.id });
  store.write(() => {
    signIn.secondFactor = { strategy: "email_code", status: "unverified" };
  });
}

/** `attempt_second_factor` at `needs_client_trust`: a wrong code is Clerk's 422; the right one verifies the step. */
export function attemptClientTrustCode(
  store: Store,
  signIn: SignInRecord,
  strategy: string | null,
  code: string | null,
): void {
  requireEmailCode(strategy);
  if (!isSentCode(code)) {
    store.write(() => {
      signIn.secondFactor = { strategy: "email_code", status: "unverified" };
    });
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  }
  store.write(() => {
    signIn.secondFactor = { strategy: "email_code", status: "verified" };
  });
}
