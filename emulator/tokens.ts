import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/** The emulator's signing key: RS256, 2048-bit, as Clerk's instance keys are. */
export type SigningKey = { kid: string; privateKey: KeyObject; publicKeyPem: string; privateKeyPem: string };

export function generateSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return signingKeyFromPem(privateKey.export({ type: "pkcs8", format: "pem" }).toString());
}

export function signingKeyFromPem(privateKeyPem: string, kid?: string): SigningKey {
  const privateKey = createPrivateKey(privateKeyPem);
  const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString();
  return { kid: kid ?? `ins_${randomBytes(12).toString("hex")}`, privateKey, publicKeyPem, privateKeyPem };
}

export function jwks(key: SigningKey) {
  const jwk = createPublicKey(key.privateKey).export({ format: "jwk" });
  return { keys: [{ ...jwk, kid: key.kid, alg: "RS256", use: "sig" }] };
}

const base64url = (input: Buffer | string) => Buffer.from(input).toString("base64url");

export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: "RS256", kid: key.kid, typ: "JWT" }));
  const payload = base64url(JSON.stringify(claims));
  const signature = sign("RSA-SHA256", Buffer.from(`${header}.${payload}`), key.privateKey);
  return `${header}.${payload}.${base64url(signature)}`;
}

export type SessionClaimsInput = {
  issuer: string;
  sessionId: string;
  userId: string;
  name: string | null;
  imageUrl: string | null;
  org: { id: string; slug: string | null; role: string } | null;
  ttlSeconds: number;
  azp?: string;
};

/**
 * A Clerk session token (version 1 claims). `name` and `image_url` are the
 * custom claims this app asks Clerk to add (docs/deployment.md, "Clerk's dashboard").
 */
export function sessionClaims(input: SessionClaimsInput): Record<string, unknown> {
  const iat = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    azp: input.azp,
    exp: iat + input.ttlSeconds,
    iat,
    iss: input.issuer,
    nbf: iat - 10,
    sid: input.sessionId,
    sub: input.userId,
    fva: [0, -1],
    name: input.name ?? undefined,
    image_url: input.imageUrl ?? undefined,
  };
  if (input.org) {
    claims.org_id = input.org.id;
    if (input.org.slug) claims.org_slug = input.org.slug;
    claims.org_role = input.org.role;
    claims.org_permissions = [];
  }
  return claims;
}
