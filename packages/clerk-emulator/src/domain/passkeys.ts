import { newId } from "../state/ids";
import type { PasskeyRecord, SignInRecord, Store, UserRecord } from "../state/store";
import { ApiError } from "./errors";
import type { verifyRegistration } from "./webauthn";

/**
 * A user's passkeys: a registration starts with a challenge, is finished by
 * the browser's verified credential, and the passkey is then named, used to
 * sign in and removed. The WebAuthn checks themselves are domain/webauthn.ts.
 */
export function startPasskeyRegistration(
  store: Store,
  user: UserRecord,
  input: { name: string; challenge: string },
): PasskeyRecord {
  const now = Date.now();
  const passkey: PasskeyRecord = {
    id: newId("idn"),
    userId: user.id,
    name: input.name,
    credentialId: null,
    publicKey: null,
    alg: null,
    signCount: 0,
    challenge: input.challenge,
    verified: false,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return store.write((state) => {
    // Unfinished registrations of this user are dropped: only the newest challenge stands.
    state.passkeys = state.passkeys.filter((p) => p.verified || p.userId !== user.id);
    state.passkeys.push(passkey);
    return passkey;
  });
}

export function finishPasskeyRegistration(
  store: Store,
  user: UserRecord,
  passkey: PasskeyRecord,
  registered: ReturnType<typeof verifyRegistration>,
): void {
  if (store.state.passkeys.some((p) => p.credentialId === registered.credentialId))
    throw new ApiError(400, "passkey_invalid", "This passkey is already registered.");
  store.write(() => {
    Object.assign(passkey, {
      credentialId: registered.credentialId,
      publicKey: registered.publicKey,
      alg: registered.alg,
      signCount: registered.signCount,
      challenge: null,
      verified: true,
      updatedAt: Date.now(),
    });
    user.updatedAt = passkey.updatedAt;
  });
}

export function renamePasskey(store: Store, passkey: PasskeyRecord, name: string): void {
  if (!name.trim()) throw new ApiError(422, "form_param_nil", "Enter a name.", "name");
  store.write(() => {
    passkey.name = name.trim().slice(0, 100);
    passkey.updatedAt = Date.now();
  });
}

export function removePasskey(store: Store, user: UserRecord, passkey: PasskeyRecord): void {
  store.write((state) => {
    state.passkeys = state.passkeys.filter((p) => p !== passkey);
    user.updatedAt = Date.now();
  });
}

/** A sign-in with the passkey: its counter moves on (a clone's would lag) and its last use is now. */
export function recordPasskeyUse(store: Store, passkey: PasskeyRecord, signCount: number): void {
  store.write(() => {
    passkey.signCount = signCount;
    passkey.lastUsedAt = Date.now();
  });
}

/** A sign-in's `passkey` first factor prepared: `requestOptions` (WebAuthn's, with the challenge) kept as its nonce. */
export function preparePasskeyFactor(store: Store, signIn: SignInRecord, requestOptions: string): void {
  store.write(() =>
    Object.assign(signIn, {
      firstFactorStrategy: "passkey",
      firstFactorStatus: "unverified",
      passkeyNonce: requestOptions,
    }),
  );
}

/** The browser's assertion did not verify: the factor is failed (another prepare starts over). */
export function failPasskeyFactor(store: Store, signIn: SignInRecord): void {
  store.write(() => {
    signIn.firstFactorStatus = "failed";
  });
}

/** The passkey's user is signed in: the sign-in is complete with the session made for it. */
export function completePasskeySignIn(store: Store, signIn: SignInRecord, user: UserRecord, sessionId: string): void {
  store.write(() =>
    Object.assign(signIn, {
      identifier: signIn.identifier ?? user.email,
      userId: user.id,
      status: "complete",
      firstFactorStatus: "verified",
      passkeyNonce: null,
      createdSessionId: sessionId,
    }),
  );
}
