import type { PasskeyRecord, Store } from "../state/store";
import type { Api } from "./common";

/** How long a passkey challenge may be answered: WebAuthn's `timeout` the options name. */
export const PASSKEY_TIMEOUT_MS = 5 * 60_000;

/**
 * A passkey. The Frontend API's (`Client.Passkey`) carries a pending
 * registration's options in `verification.nonce` (clerk-js parses it as
 * `PublicKeyCredentialCreationOptionsJSON`); the Backend API's is the closed
 * shape Clerk documents, for registered passkeys only.
 */
export function passkeyJSON(passkey: PasskeyRecord, api: Api, creationOptions?: unknown) {
  if (api === "bapi")
    return {
      id: passkey.id,
      object: "passkey",
      name: passkey.name,
      last_used_at: passkey.lastUsedAt ?? passkey.createdAt,
      verification: {
        object: "verification_passkey",
        status: "verified",
        strategy: "passkey",
        attempts: null,
        expire_at: null,
      },
    };
  const pending = !passkey.verified && creationOptions !== undefined;
  return {
    id: passkey.id,
    object: "passkey",
    name: passkey.name,
    last_used_at: passkey.lastUsedAt,
    verification: {
      object: "verification_passkey",
      status: passkey.verified ? "verified" : "unverified",
      strategy: "passkey",
      attempts: null,
      expire_at: passkey.updatedAt + PASSKEY_TIMEOUT_MS,
      ...(pending ? { nonce: JSON.stringify(creationOptions) } : {}),
    },
    created_at: passkey.createdAt,
    updated_at: passkey.updatedAt,
  };
}

/** A user's registered passkeys. */
export const passkeysOf = (store: Store, userId: string) =>
  store.state.passkeys.filter((p) => p.userId === userId && p.verified);
