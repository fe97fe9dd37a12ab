import { randomBytes } from "node:crypto";
import type { SignInRecord, SignUpRecord, Store } from "../state/store";
import { ApiError, strategyNotAllowed } from "./errors";
import { SOCIAL_PROVIDERS, authenticatableSocialStrategies } from "./social-connections";

/*
 * A sign-in or sign-up that starts with a social connection, as far as the redirect to the provider
 * (the instance's connections themselves: social-connections.ts).
 */

/**
 * Where Clerk sends the browser for an OAuth sign-in or sign-up: the provider's authorize URL, coming
 * back to the Frontend API's `/v1/oauth_callback`. The `state` is random and kept nowhere: the
 * emulator's callback refuses every `state`, since no provider ever sends the browser back.
 */
export function oauthAuthorizeUrl(store: Store, strategy: string, frontendApiUrl: string): string {
  const provider = store.settings.instance.socialConnections[strategy]?.provider ?? SOCIAL_PROVIDERS[strategy]!;
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set("client_id", `clerk-emulator-${strategy.replace(/^oauth_/, "")}`);
  url.searchParams.set("redirect_uri", `${frontendApiUrl.replace(/\/$/, "")}/v1/oauth_callback`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", provider.scope);
  url.searchParams.set("state", randomBytes(16).toString("hex"));
  return url.toString();
}

/**
 * A sign-in or sign-up starting with a social connection needs the instance to offer it (Clerk's 422 on
 * `strategy` otherwise) and a `redirect_url` (where the Frontend API's callback would send the browser back).
 */
export function refuseUnofferedOAuth(store: Store, strategy: string, redirectUrl: string | null): void {
  if (!authenticatableSocialStrategies(store.settings.instance.socialConnections).includes(strategy)) {
    throw strategyNotAllowed(strategy);
  }
  if (!redirectUrl) throw new ApiError(422, "form_param_missing", "is missing", "redirect_url");
}

/** The sign-in waits for the provider: an unverified OAuth first factor whose redirect is the authorize URL. */
export function startOAuthSignIn(
  store: Store,
  signIn: SignInRecord,
  strategy: string,
  redirectUrl: string | null,
  frontendApiUrl: string,
): void {
  refuseUnofferedOAuth(store, strategy, redirectUrl);
  store.write(() => {
    signIn.firstFactorStrategy = strategy;
    signIn.firstFactorStatus = "unverified";
    signIn.externalVerificationRedirectUrl = oauthAuthorizeUrl(store, strategy, frontendApiUrl);
  });
}

/** The sign-up waits for the provider: an unverified external account whose redirect is the authorize URL. */
export function startOAuthSignUp(
  store: Store,
  signUp: SignUpRecord,
  strategy: string,
  redirectUrl: string | null,
  frontendApiUrl: string,
): void {
  refuseUnofferedOAuth(store, strategy, redirectUrl);
  store.write(() => {
    signUp.externalAccount = { strategy, redirectUrl: oauthAuthorizeUrl(store, strategy, frontendApiUrl) };
  });
}
