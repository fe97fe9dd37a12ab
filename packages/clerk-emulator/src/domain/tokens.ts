import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from "node:crypto";
import type { Settings } from "../settings";

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

/** The algorithms a custom signing key may use: HMAC with a shared secret, or an RSA or EC private key (PEM). */
export const CUSTOM_KEY_ALGORITHMS: Record<string, { kind: "hmac" | "rsa" | "ec"; hash: string }> = {
  HS256: { kind: "hmac", hash: "sha256" },
  HS384: { kind: "hmac", hash: "sha384" },
  HS512: { kind: "hmac", hash: "sha512" },
  RS256: { kind: "rsa", hash: "sha256" },
  RS384: { kind: "rsa", hash: "sha384" },
  RS512: { kind: "rsa", hash: "sha512" },
  ES256: { kind: "ec", hash: "sha256" },
  ES384: { kind: "ec", hash: "sha384" },
  ES512: { kind: "ec", hash: "sha512" },
};

/** A JWT template's own key: an HMAC secret, or an RSA or EC private key (PEM), with its algorithm. */
export type CustomSigningKey = { readonly algorithm: string; readonly key: string };

function signWithCustomKey(custom: CustomSigningKey, input: string): Buffer {
  const algorithm = CUSTOM_KEY_ALGORITHMS[custom.algorithm];
  if (!algorithm) throw new Error(`unsupported algorithm ${custom.algorithm}`);
  if (algorithm.kind === "hmac")
    return createHmac(algorithm.hash, Buffer.from(custom.key, "utf8")).update(input).digest();
  const key: KeyObject = createPrivateKey(custom.key);
  if (key.asymmetricKeyType !== (algorithm.kind === "rsa" ? "rsa" : "ec")) throw new Error("key type mismatch");
  // JOSE wants an EC signature as r||s, not DER.
  return sign(algorithm.hash, Buffer.from(input), algorithm.kind === "ec" ? { key, dsaEncoding: "ieee-p1363" } : key);
}

/**
 * The one JWT minter: session tokens, JWT templates' tokens, and the probe that checks a template's
 * key. The instance's key signs RS256 with its `kid` (`header` adds to it: a template token's `cat`);
 * a template's own key signs with its algorithm and no `kid`.
 */
export function signJwt(
  key: SigningKey | CustomSigningKey,
  claims: Record<string, unknown>,
  header: Record<string, string> = {},
): string {
  const encode = (jose: object) => `${base64url(JSON.stringify(jose))}.${base64url(JSON.stringify(claims))}`;
  if ("algorithm" in key) {
    const input = encode({ alg: key.algorithm, typ: "JWT" });
    return `${input}.${base64url(signWithCustomKey(key, input))}`;
  }
  const input = encode({ alg: "RS256", ...header, kid: key.kid, typ: "JWT" });
  return `${input}.${base64url(sign("RSA-SHA256", Buffer.from(input), key.privateKey))}`;
}

/**
 * Clerk's two session token formats. Version 2 (`v: 2`, the organization in
 * `o`) is what Clerk issues since API version 2025-04-10 and the default
 * here; version 1 (`org_id`, `org_slug`, `org_role`, `org_permissions`) is
 * for instances not yet moved over. GUIDE.md, "Session tokens".
 */
export type SessionTokenVersion = 1 | 2;

/** Clerk's current version: the settings' default (`DEFAULT_SETTINGS`), and `sessionClaims`' when none is given. */
export const DEFAULT_SESSION_TOKEN_VERSION: SessionTokenVersion = 2;

/**
 * What the emulator mints tokens with, in one shape for every API that mints
 * (Frontend, Backend, control) and both minters (session tokens, JWT
 * templates): the settings' part (a `Pick`, src/settings.ts) and what the host
 * adds, the instance's key, the `iss` and how long a session lasts.
 */
export type TokenSettings = Pick<Settings, "tokenTtlSeconds" | "sessionTokenVersion"> & {
  key: SigningKey;
  /** `iss` of every token: the Frontend API origin the publishable key names (@clerk/backend compares them). */
  issuer: string;
  /** How long a session lasts from its sign-in; its tokens are minted within it. */
  sessionLifetimeMs: number;
};

export type SessionClaimsInput = {
  issuer: string;
  sessionId: string;
  userId: string;
  name: string | null;
  imageUrl: string | null;
  /**
   * The active organization. `role` is Clerk's role key (`org:admin`);
   * `permissions` the role's custom permissions (`org:<feature>:<permission>`):
   * system permissions (`org:sys_…`) are never in a session token.
   */
  org: { id: string; slug: string | null; role: string; permissions?: readonly string[] } | null;
  ttlSeconds: number;
  azp?: string;
  /** 2 unless asked for: see SessionTokenVersion. */
  version?: SessionTokenVersion;
  /** An impersonated session's actor (`act`, at least `sub`): see actorClaim. */
  actor?: Record<string, unknown> | null;
  /** Minutes since the session's first and second factor were verified (-1: no second factor); [0, -1] unless given. */
  fva?: [number, number];
  /** `sts` in version 2: `pending` while the session has a task (domain/session-tasks.ts); `active` unless given. */
  status?: "active" | "pending";
};

/**
 * An impersonated session's token says who is acting (`act`: the actor
 * token's `actor`, RFC 8693's actor claim), which @clerk/backend's auth
 * object shows as `actor`; a session of the user's own carries none.
 */
export function actorClaim(actor: Record<string, unknown> | null | undefined): { act?: Record<string, unknown> } {
  return actor ? { act: actor } : {};
}

/** The custom permissions a session token may carry, system ones left out as Clerk does. */
function customPermissions(permissions: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  for (const p of permissions ?? []) if (/^org:[^:]+:[^:]+$/.test(p) && !p.startsWith("org:sys_")) seen.add(p);
  return [...seen];
}

/**
 * Version 2's compact permissions: `fea` names each feature once (`o:` for an
 * organization's), `o.per` each permission name once, and `o.fpm` holds, per
 * `o:` feature in `fea`'s order, a decimal bitmask whose bit i (the least
 * significant is 0) says the feature grants `per`'s i-th name:
 * `org:invoices:read` + `org:invoices:manage` + `org:reports:read` is
 * fea `o:invoices,o:reports`, per `read,manage`, fpm `3,1`.
 */
export function encodePermissions(permissions: readonly string[]): { fea: string; per: string; fpm: string } | null {
  const custom = customPermissions(permissions);
  if (custom.length === 0) return null;
  const features: string[] = [];
  const names: string[] = [];
  const masks = new Map<string, bigint>();
  for (const p of custom) {
    const [, feature = "", name = ""] = p.split(":");
    if (!features.includes(feature)) features.push(feature);
    if (!names.includes(name)) names.push(name);
    masks.set(feature, (masks.get(feature) ?? 0n) | (1n << BigInt(names.indexOf(name))));
  }
  return {
    fea: features.map((f) => `o:${f}`).join(","),
    per: names.join(","),
    fpm: features.map((f) => String(masks.get(f) ?? 0n)).join(","),
  };
}

/**
 * A Clerk session token's claims, in the version asked for (2 by default).
 * `name` and `image_url` are the custom claims this app asks Clerk to add
 * (docs/deployment.md, "Clerk's dashboard"). Version 2 adds `v`, `sts` (the
 * session's status: `active`, or `pending` while it has a session task), `jti`, and
 * the organization as `o` (`id`, `slg` if it has a slug, `rol` without the
 * `org:` prefix, `per`/`fpm` with `fea` when the role has custom
 * permissions); `o` and `fea` are absent when no organization is active.
 * The emulator has no billing, so no `pla`.
 */
export function sessionClaims(input: SessionClaimsInput): Record<string, unknown> {
  const iat = Math.floor(Date.now() / 1000);
  const version = input.version ?? DEFAULT_SESSION_TOKEN_VERSION;
  const claims: Record<string, unknown> = {
    azp: input.azp,
    exp: iat + input.ttlSeconds,
    iat,
    iss: input.issuer,
    nbf: iat - 10,
    sid: input.sessionId,
    sub: input.userId,
    fva: input.fva ?? [0, -1],
    name: input.name ?? undefined,
    image_url: input.imageUrl ?? undefined,
    ...actorClaim(input.actor),
  };
  if (version === 1) {
    if (input.org) {
      claims.org_id = input.org.id;
      if (input.org.slug) claims.org_slug = input.org.slug;
      claims.org_role = input.org.role;
      claims.org_permissions = customPermissions(input.org.permissions);
    }
    return claims;
  }
  claims.jti = randomBytes(10).toString("hex");
  claims.sts = input.status ?? "active";
  claims.v = 2;
  if (input.org) {
    const o: Record<string, string> = { id: input.org.id };
    if (input.org.slug) o.slg = input.org.slug;
    o.rol = input.org.role.replace(/^org:/, "");
    const encoded = encodePermissions(input.org.permissions ?? []);
    if (encoded) {
      o.per = encoded.per;
      o.fpm = encoded.fpm;
      claims.fea = encoded.fea;
    }
    claims.o = o;
  }
  return claims;
}
