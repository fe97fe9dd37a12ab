import { createHash, createPublicKey, verify as verifySignature, type JsonWebKey } from "node:crypto";

/**
 * WebAuthn verification for passkeys (W3C Web Authentication, level 2 §7.1
 * registration, §7.2 authentication), done for real: the client data's type,
 * challenge and origin, the authenticator data's RP ID hash, flags and counter,
 * the credential's COSE public key, and the assertion's signature. Attestation
 * statements are not checked (Clerk asks for `attestation: "none"`).
 */

export class WebAuthnError extends Error {}

type Cbor = number | bigint | string | Buffer | boolean | null | undefined | Cbor[] | Map<Cbor, Cbor>;

/** A CBOR decoder (RFC 8949) for what authenticators send: no floats, no tags, definite lengths. */
function decodeCbor(bytes: Buffer, start = 0): { value: Cbor; end: number } {
  let at = start;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new WebAuthnError("CBOR data is truncated");
  };
  const readLength = (info: number): number => {
    if (info < 24) return info;
    const size = { 24: 1, 25: 2, 26: 4 }[info];
    if (!size) throw new WebAuthnError("unsupported CBOR length");
    need(size);
    const n = bytes.readUIntBE(at, size);
    at += size;
    return n;
  };
  const item = (): Cbor => {
    need(1);
    const head = bytes[at++]!;
    const major = head >> 5;
    const info = head & 0x1f;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      throw new WebAuthnError("unsupported CBOR simple value");
    }
    const length = readLength(info);
    switch (major) {
      case 0:
        return length;
      case 1:
        return -1 - length;
      case 2:
      case 3: {
        need(length);
        const chunk = bytes.subarray(at, at + length);
        at += length;
        return major === 2 ? Buffer.from(chunk) : chunk.toString("utf8");
      }
      case 4:
        return Array.from({ length }, () => item());
      case 5: {
        const map = new Map<Cbor, Cbor>();
        for (let i = 0; i < length; i++) map.set(item(), item());
        return map;
      }
      default:
        throw new WebAuthnError("unsupported CBOR item");
    }
  };
  const value = item();
  return { value, end: at };
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();

/** A COSE public key (RFC 9053) as a JWK: EC2 P-256 (ES256, -7) or RSA (RS256, -257), the algorithms Clerk offers. */
function coseToJwk(cose: Cbor): { jwk: JsonWebKey; alg: -7 | -257 } {
  if (!(cose instanceof Map)) throw new WebAuthnError("the credential public key is not a COSE key");
  const kty = cose.get(1);
  const alg = cose.get(3);
  const b64 = (v: Cbor) => {
    if (!Buffer.isBuffer(v)) throw new WebAuthnError("malformed COSE key");
    return v.toString("base64url");
  };
  if (kty === 2 && alg === -7 && cose.get(-1) === 1)
    return { jwk: { kty: "EC", crv: "P-256", x: b64(cose.get(-2)), y: b64(cose.get(-3)) }, alg };
  if (kty === 3 && alg === -257) return { jwk: { kty: "RSA", n: b64(cose.get(-1)), e: b64(cose.get(-2)) }, alg };
  throw new WebAuthnError("the credential's algorithm is not ES256 or RS256");
}

type AuthenticatorData = {
  rpIdHash: Buffer;
  userPresent: boolean;
  userVerified: boolean;
  signCount: number;
  credential: { id: Buffer; publicKey: Cbor } | null;
};

function parseAuthenticatorData(data: Buffer): AuthenticatorData {
  if (data.length < 37) throw new WebAuthnError("authenticator data is too short");
  const flags = data[32]!;
  const result: AuthenticatorData = {
    rpIdHash: data.subarray(0, 32),
    userPresent: (flags & 0x01) !== 0,
    userVerified: (flags & 0x04) !== 0,
    signCount: data.readUInt32BE(33),
    credential: null,
  };
  if (flags & 0x40) {
    if (data.length < 55) throw new WebAuthnError("attested credential data is truncated");
    const idLength = data.readUInt16BE(53);
    const id = data.subarray(55, 55 + idLength);
    if (id.length !== idLength) throw new WebAuthnError("attested credential data is truncated");
    result.credential = { id: Buffer.from(id), publicKey: decodeCbor(data, 55 + idLength).value };
  }
  return result;
}

export type Expected = { challenge: string; origins: readonly string[]; rpId: string };

function checkClientData(clientDataJSON: string, type: string, expected: Expected): Buffer {
  const raw = Buffer.from(clientDataJSON, "base64url");
  let data: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    data = JSON.parse(raw.toString("utf8")) as typeof data;
  } catch {
    throw new WebAuthnError("clientDataJSON is not JSON");
  }
  if (data.type !== type) throw new WebAuthnError(`clientDataJSON.type is not ${type}`);
  if (data.challenge !== expected.challenge) throw new WebAuthnError("the challenge does not match");
  if (typeof data.origin !== "string" || !expected.origins.includes(data.origin))
    throw new WebAuthnError("the origin is not one of the instance's");
  return raw;
}

function checkAuthenticatorData(auth: AuthenticatorData, expected: Expected) {
  if (!auth.rpIdHash.equals(sha256(expected.rpId))) throw new WebAuthnError("the RP ID does not match");
  if (!auth.userPresent) throw new WebAuthnError("the user was not present");
  if (!auth.userVerified) throw new WebAuthnError("the user was not verified");
}

/** The parts of a serialised `PublicKeyCredential` (clerk-js's `serializePublicKeyCredential`, base64url fields). */
type SerializedCredential = {
  id?: unknown;
  rawId?: unknown;
  type?: unknown;
  response?: {
    clientDataJSON?: unknown;
    attestationObject?: unknown;
    authenticatorData?: unknown;
    signature?: unknown;
    userHandle?: unknown;
  };
};

export function parseCredential(json: string | null): SerializedCredential & { id: string } {
  let credential: SerializedCredential;
  try {
    credential = JSON.parse(json ?? "") as SerializedCredential;
  } catch {
    throw new WebAuthnError("public_key_credential is not JSON");
  }
  if (typeof credential?.id !== "string" || credential.type !== "public-key" || !credential.response)
    throw new WebAuthnError("public_key_credential is not a public-key credential");
  return credential as SerializedCredential & { id: string };
}

const field = (value: unknown, name: string): string => {
  if (typeof value !== "string" || !value) throw new WebAuthnError(`${name} is missing`);
  return value;
};

/** Registration (§7.1): the new credential's id, public key (JWK) and counter. */
export function verifyRegistration(json: string | null, expected: Expected) {
  const credential = parseCredential(json);
  checkClientData(field(credential.response?.clientDataJSON, "clientDataJSON"), "webauthn.create", expected);
  const attestation = decodeCbor(
    Buffer.from(field(credential.response?.attestationObject, "attestationObject"), "base64url"),
  ).value;
  const authData = attestation instanceof Map ? attestation.get("authData") : undefined;
  if (!Buffer.isBuffer(authData)) throw new WebAuthnError("the attestation object has no authenticator data");
  const auth = parseAuthenticatorData(authData);
  checkAuthenticatorData(auth, expected);
  if (!auth.credential) throw new WebAuthnError("no attested credential");
  if (auth.credential.id.toString("base64url") !== credential.id)
    throw new WebAuthnError("the credential id does not match");
  const { jwk, alg } = coseToJwk(auth.credential.publicKey);
  return { credentialId: credential.id, publicKey: jwk, alg, signCount: auth.signCount };
}

/** Authentication (§7.2) with a stored credential: returns the new counter, refusing a counter that went back. */
export function verifyAssertion(
  json: string | null,
  expected: Expected,
  stored: { credentialId: string; publicKey: JsonWebKey; alg: number; signCount: number },
): { signCount: number; userHandle: string | null } {
  const credential = parseCredential(json);
  if (credential.id !== stored.credentialId) throw new WebAuthnError("unknown credential");
  const clientData = checkClientData(
    field(credential.response?.clientDataJSON, "clientDataJSON"),
    "webauthn.get",
    expected,
  );
  const authData = Buffer.from(field(credential.response?.authenticatorData, "authenticatorData"), "base64url");
  const auth = parseAuthenticatorData(authData);
  checkAuthenticatorData(auth, expected);
  const signed = Buffer.concat([authData, sha256(clientData)]);
  const signature = Buffer.from(field(credential.response?.signature, "signature"), "base64url");
  const key = createPublicKey({ key: stored.publicKey, format: "jwk" });
  const ok =
    stored.alg === -7
      ? verifySignature("sha256", signed, { key, dsaEncoding: "der" }, signature)
      : verifySignature("sha256", signed, key, signature);
  if (!ok) throw new WebAuthnError("the signature does not verify");
  if ((auth.signCount !== 0 || stored.signCount !== 0) && auth.signCount <= stored.signCount)
    throw new WebAuthnError("the signature counter went back: the credential may be cloned");
  const userHandle = typeof credential.response?.userHandle === "string" ? credential.response.userHandle : null;
  return { signCount: auth.signCount, userHandle };
}
