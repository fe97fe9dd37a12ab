// clerk-emulator/testing: what a Clerk app's tests need to drive the emulator
// as Clerk's SDKs and a browser do, receive its webhooks, and keep off the network.
export {
  armFault,
  backendApi,
  emulatorCalls,
  errorCode,
  finishSignInByEmailCode,
  frontendClient,
  newPerson,
  newTeam,
  patchInstance,
  signedInBrowser,
  startInProcessEmulator,
  TEAM_PASSWORD,
  uniqueEmail,
  webhooksDelivered,
  type ApiReply,
  type BackendApi,
  type InProcessEmulator,
} from "./emulator-api";
export { freePort } from "./free-port";
export { spawnGroup, stopGroup, type GroupChild } from "./process-group";
export { startStandaloneEmulator, timed, type StandaloneEmulator } from "./standalone-emulator";
export { startWebhookSink, type VerifiedWebhook, type WebhookSink } from "./webhook-sink";
export { newWebhookSecret, signedWebhook } from "./webhooks";
export { authenticatorCode, freshAuthenticatorCode } from "./totp";
export { isLoopbackUrl, loopbackOnlyContext, NETWORK_GUARD_MARK, NETWORK_GUARD_PATH } from "./network-guard";
export { OPEN_REDIRECT_PAYLOADS } from "./open-redirect-payloads";
// Signing keys and session tokens as the emulator makes them, for tests that mint or forge their own.
export {
  generateSigningKey,
  jwks,
  sessionClaims,
  signingKeyFromPem,
  signJwt,
  type SessionClaimsInput,
  type SessionTokenVersion,
  type SigningKey,
} from "../src/domain/tokens";
