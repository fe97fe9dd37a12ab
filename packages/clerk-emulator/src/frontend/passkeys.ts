import { randomBytes } from "node:crypto";
import type { Request, Response } from "express";
import { deletedJSON } from "../json";
import { PASSKEY_TIMEOUT_MS, passkeyJSON, passkeysOf } from "../json/passkeys";
import { proxyUrlOf, publicOrigin } from "../http/proxy";
import { ApiError, strategyNotAllowed } from "../domain/errors";
import { refuseSignedInAgain } from "../domain/sessions";
import { str } from "../http/routing";
import type { ClientRecord, PasskeyRecord, SignInRecord, UserRecord } from "../state/store";
import {
  finishPasskeyRegistration,
  recordPasskeyUse,
  completePasskeySignIn,
  failPasskeyFactor,
  preparePasskeyFactor,
  removePasskey,
  renamePasskey,
  startPasskeyRegistration,
} from "../domain/passkeys";
import { verifyAssertion, verifyRegistration, WebAuthnError, type Expected } from "../domain/webauthn";
import { activityOf } from "../http/activity";
import type { FrontendContext, Route } from "./context";

/** Clerk's WebAuthn algorithms: ES256, then RS256. */
const PUB_KEY_CRED_PARAMS = [
  { type: "public-key", alg: -7 },
  { type: "public-key", alg: -257 },
];

const challenge = () => randomBytes(32).toString("base64url");
const passkeysIn = (fapi: FrontendContext) => fapi.store.state.passkeys;

/** Passkeys exist only on an instance that has them (`passkeys`); elsewhere Clerk's 422 for the strategy. */
function refuseUnlessPasskeys(fapi: FrontendContext) {
  if (fapi.store.settings.passkeys) return;
  throw strategyNotAllowed("passkey");
}

/**
 * The relying party: the host the browser reaches the app on (the proxy's,
 * else the request's), which the page's origin must be, as WebAuthn requires.
 */
function relyingParty(req: Request, fapi: FrontendContext): { rpId: string; origins: string[] } {
  const origin = proxyUrlOf(req, fapi.secretKey)?.origin ?? publicOrigin(req) ?? "";
  const rpId = origin ? new URL(origin).hostname : "";
  const sameSite = fapi.allowedOrigins.filter((o) => {
    const host = new URL(o).hostname;
    return host === rpId || host.endsWith(`.${rpId}`);
  });
  return { rpId, origins: [origin, ...sameSite] };
}

const expectedFor = (req: Request, fapi: FrontendContext, wanted: string): Expected => {
  const { rpId, origins } = relyingParty(req, fapi);
  return { challenge: wanted, rpId, origins };
};

/** `PublicKeyCredentialCreationOptionsJSON` for registering a passkey of `user` (clerk-js parses `verification.nonce`). */
function creationOptions(req: Request, fapi: FrontendContext, user: UserRecord, passkey: PasskeyRecord) {
  const { rpId } = relyingParty(req, fapi);
  return {
    challenge: passkey.challenge,
    rp: { name: fapi.store.settings.applicationName, id: rpId },
    user: {
      id: Buffer.from(user.id).toString("base64url"),
      name: user.email,
      displayName: [user.firstName, user.lastName].filter(Boolean).join(" ") || user.email,
    },
    pubKeyCredParams: PUB_KEY_CRED_PARAMS,
    timeout: PASSKEY_TIMEOUT_MS,
    excludeCredentials: passkeysOf(fapi.store, user.id).map((p) => ({ type: "public-key", id: p.credentialId })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
    attestation: "none",
  };
}

const refused = (error: unknown): never => {
  if (error instanceof WebAuthnError)
    throw new ApiError(400, "passkey_invalid", "The passkey could not be verified.", undefined, error.message);
  throw error;
};

/** The signed-in person's passkeys: register one (create, then attempt with the browser's credential), rename, remove. */
export function registerPasskeyRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;

  const passkeyOf = (user: UserRecord, id: unknown) => {
    const passkey = passkeysIn(fapi).find((p) => p.id === id && p.userId === user.id);
    if (!passkey) throw new ApiError(404, "resource_not_found", "Passkey not found");
    return passkey;
  };
  const show = (req: Request, res: Response, user: UserRecord, passkey: PasskeyRecord) =>
    reply(req, res, passkeyJSON(passkey, "fapi", creationOptions(req, fapi, user, passkey)));

  route("POST", "/v1/me/passkeys", (req, res) => {
    const { user } = me(req);
    refuseUnlessPasskeys(fapi);
    const browser = activityOf(req).browserName;
    const name = browser ? `${browser} passkey` : "Passkey";
    const passkey = startPasskeyRegistration(store, user, { name, challenge: challenge() });
    return show(req, res, user, passkey);
  });

  route("GET", "/v1/me/passkeys/:id", (req, res) => {
    const { user } = me(req);
    return show(req, res, user, passkeyOf(user, req.params.id));
  });

  route("POST", "/v1/me/passkeys/:id/attempt_verification", (req, res) => {
    const { user } = me(req);
    const passkey = passkeyOf(user, req.params.id);
    if (passkey.verified || !passkey.challenge)
      throw new ApiError(400, "verification_already_verified", "This passkey has already been verified.");
    if (passkey.updatedAt + PASSKEY_TIMEOUT_MS <= Date.now())
      throw new ApiError(400, "verification_expired", "This registration has expired. Start again.");
    let registered: ReturnType<typeof verifyRegistration>;
    try {
      registered = verifyRegistration(str(req.body?.public_key_credential), expectedFor(req, fapi, passkey.challenge));
    } catch (error) {
      return refused(error);
    }
    finishPasskeyRegistration(store, user, passkey, registered);
    return show(req, res, user, passkey);
  });

  route("PATCH", "/v1/me/passkeys/:id", (req, res) => {
    const { user } = me(req);
    const passkey = passkeyOf(user, req.params.id);
    const name = str(req.body?.name);
    if (name !== null) renamePasskey(store, passkey, name);
    return show(req, res, user, passkey);
  });

  route("DELETE", "/v1/me/passkeys/:id", (req, res) => {
    const { user } = me(req);
    const passkey = passkeyOf(user, req.params.id);
    removePasskey(store, user, passkey);
    return reply(req, res, deletedJSON("passkey", passkey.id));
  });
}

/**
 * A sign-in's `passkey` first factor: WebAuthn request options with a fresh
 * challenge, kept on the sign-in as its verification's `nonce`. With a user
 * (an identifier was given) only their passkeys are allowed; without one
 * (`strategy: passkey` at creation, clerk-js's discoverable flow) any of the
 * instance's, the authenticator choosing.
 */
export function preparePasskeySignIn(fapi: FrontendContext, req: Request, signIn: SignInRecord) {
  refuseUnlessPasskeys(fapi);
  const { rpId } = relyingParty(req, fapi);
  const allow = signIn.userId ? passkeysOf(fapi.store, signIn.userId) : [];
  const requestOptions = JSON.stringify({
    challenge: challenge(),
    rpId,
    allowCredentials: allow.map((p) => ({ type: "public-key", id: p.credentialId })),
    userVerification: "required",
    timeout: PASSKEY_TIMEOUT_MS,
  });
  preparePasskeyFactor(fapi.store, signIn, requestOptions);
}

/** The browser's assertion for a prepared `passkey` factor, verified against the credential's stored key. */
export function attemptPasskeySignIn(fapi: FrontendContext, req: Request, client: ClientRecord, signIn: SignInRecord) {
  const { store } = fapi;
  const nonce = signIn.firstFactorStrategy === "passkey" ? signIn.passkeyNonce : null;
  if (!nonce) throw new ApiError(422, "verification_missing", "Prepare the passkey factor first.", "strategy");
  const json = str(req.body?.public_key_credential);
  let credentialId: string;
  try {
    credentialId = (JSON.parse(json ?? "") as { id?: unknown }).id as string;
  } catch {
    throw new ApiError(422, "form_param_format_invalid", "public_key_credential is not JSON", "public_key_credential");
  }
  const passkey = passkeysIn(fapi).find((p) => p.verified && p.credentialId === credentialId);
  if (!passkey || (signIn.userId && passkey.userId !== signIn.userId))
    throw new ApiError(422, "passkey_not_found", "This passkey is not registered for this account.");
  const { challenge: wanted } = JSON.parse(nonce) as { challenge: string };
  let result: ReturnType<typeof verifyAssertion>;
  try {
    result = verifyAssertion(json, expectedFor(req, fapi, wanted), {
      credentialId: passkey.credentialId!,
      publicKey: passkey.publicKey!,
      alg: passkey.alg!,
      signCount: passkey.signCount,
    });
  } catch (error) {
    failPasskeyFactor(store, signIn);
    return refused(error);
  }
  if (result.userHandle !== null && result.userHandle !== Buffer.from(passkey.userId).toString("base64url"))
    throw new ApiError(400, "passkey_invalid", "The passkey could not be verified.");
  const user = store.user(passkey.userId);
  if (!user) throw new ApiError(422, "passkey_not_found", "This passkey is not registered for this account.");
  // A discoverable passkey names its account only now: on a multi-session instance, one signed in already is refused.
  refuseSignedInAgain(store, client, user.id, fapi.clientMeta(req, client));
  recordPasskeyUse(store, passkey, result.signCount);
  const session = fapi.finishSignIn(req, client, user.id);
  completePasskeySignIn(store, signIn, user, session.id);
}
