import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyAssertion, verifyRegistration, WebAuthnError } from "../../src/domain/webauthn";

// The emulator's WebAuthn checks (src/domain/webauthn.ts) against a software
// authenticator written here from the specification: a P-256 key, CBOR
// attestation objects and signed assertions, each check then broken in turn.
const RP_ID = "localhost";
const ORIGIN = "http://localhost:3000";
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64 = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** Just enough CBOR (RFC 8949) to write an attestation object: small maps, strings, byte strings, integers. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number) =>
    n < 24
      ? Buffer.from([(major << 5) | n])
      : n < 256
        ? Buffer.from([(major << 5) | 24, n])
        : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map)
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error("unsupported");
}

function authenticator() {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const credentialId = Buffer.from("credential-0001");
  const cose = cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
  const authData = (counter: number, { attested = false, flags = 0x05, rpId = RP_ID } = {}) => {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts = [sha256(rpId), Buffer.from([flags | (attested ? 0x40 : 0)]), count];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(credentialId.length);
      parts.push(Buffer.alloc(16), length, credentialId, cose);
    }
    return Buffer.concat(parts);
  };
  const clientData = (type: string, challenge: string, origin = ORIGIN) =>
    Buffer.from(JSON.stringify({ type, challenge, origin }));
  return {
    id: b64(credentialId),
    register(challenge: string, options: { rpId?: string; origin?: string; flags?: number } = {}) {
      const attestationObject = cbor(
        new Map<string, unknown>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData(0, { attested: true, ...options })],
        ]),
      );
      return JSON.stringify({
        id: b64(credentialId),
        type: "public-key",
        response: {
          clientDataJSON: b64(clientData("webauthn.create", challenge, options.origin)),
          attestationObject: b64(attestationObject),
        },
      });
    },
    assert(challenge: string, counter: number, options: { key?: KeyObject; origin?: string } = {}) {
      const data = authData(counter);
      const client = clientData("webauthn.get", challenge, options.origin);
      const signature = sign("sha256", Buffer.concat([data, sha256(client)]), {
        key: options.key ?? privateKey,
        dsaEncoding: "der",
      });
      return JSON.stringify({
        id: b64(credentialId),
        type: "public-key",
        response: {
          clientDataJSON: b64(client),
          authenticatorData: b64(data),
          signature: b64(signature),
          userHandle: null,
        },
      });
    },
  };
}

const expected = (challenge: string) => ({ challenge, rpId: RP_ID, origins: [ORIGIN] });

describe("passkey registration", () => {
  it("gives the credential's id and its P-256 public key", () => {
    const device = authenticator();
    const registered = verifyRegistration(device.register("chal-1"), expected("chal-1"));
    expect(registered).toMatchObject({ credentialId: device.id, alg: -7, signCount: 0 });
    expect(registered.publicKey).toMatchObject({ kty: "EC", crv: "P-256" });
  });

  it.each([
    ["another challenge", () => authenticator().register("chal-other"), /challenge/],
    ["another origin", () => authenticator().register("chal-1", { origin: "http://evil.example" }), /origin/],
    ["another RP ID", () => authenticator().register("chal-1", { rpId: "evil.example" }), /RP ID/],
    ["no user verification", () => authenticator().register("chal-1", { flags: 0x01 }), /verified/],
    ["no JSON", () => "{", /JSON/],
  ])("refuses %s", (_, credential, message) => {
    expect(() => verifyRegistration(credential(), expected("chal-1"))).toThrow(WebAuthnError);
    expect(() => verifyRegistration(credential(), expected("chal-1"))).toThrow(message);
  });
});

describe("passkey sign-in", () => {
  const device = authenticator();
  const stored = { ...verifyRegistration(device.register("reg"), expected("reg")) };

  it("accepts the authenticator's signature over the challenge, and gives the new counter", () => {
    expect(verifyAssertion(device.assert("sign-1", 1), expected("sign-1"), stored).signCount).toBe(1);
  });

  it("refuses another key's signature, another challenge, and a counter that went back", () => {
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    expect(() => verifyAssertion(device.assert("s", 2, { key: other }), expected("s"), stored)).toThrow(/signature/);
    expect(() => verifyAssertion(device.assert("s", 2), expected("t"), stored)).toThrow(/challenge/);
    const used = { ...stored, signCount: 5 };
    expect(() => verifyAssertion(device.assert("s", 5), expected("s"), used)).toThrow(/counter/);
    expect(() =>
      verifyAssertion(device.assert("s", 2, { origin: "http://evil.example" }), expected("s"), stored),
    ).toThrow(/origin/);
  });
});
