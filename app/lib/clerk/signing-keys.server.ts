import { createPublicKey, verify, type KeyObject } from "node:crypto";

const PEM_HEADER = "-----BEGIN PUBLIC KEY-----";
const PEM_FOOTER = "-----END PUBLIC KEY-----";

/**
 * `CLERK_JWT_KEY` as a PEM block Node's crypto reads, or null when it is not
 * an RSA public key. Accepted as Clerk's SDK accepts it (which strips line
 * breaks, header and footer before reading the base64): on several lines,
 * with literal `\n` escapes (as a one-line `.env` value often holds it), on
 * one line with header and footer (`npm run emulator` prints it so), or the
 * bare base64. Node's PEM decoder itself wants the lines, hence this.
 */
export function publicKeyPem(value: string): string | null {
  const base64 = value
    .replace(/\\[rn]/g, "\n")
    .replace(PEM_HEADER, "")
    .replace(PEM_FOOTER, "")
    .replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  const pem = `${PEM_HEADER}\n${base64.replace(/.{1,64}/g, "$&\n")}${PEM_FOOTER}\n`;
  try {
    return createPublicKey(pem).asymmetricKeyType === "rsa" ? pem : null;
  } catch {
    return null;
  }
}

/** A key of Clerk's JWKS (`GET /v1/jwks`): RSA, named by its key id. */
export type ClerkJwk = { kid?: string; kty?: string; n?: string; e?: string };

/**
 * Which tokens Clerk signed, checked before Clerk's SDK sees them. The SDK
 * fetches Clerk's JWKS again for every key id it does not know (with its own
 * retries), and keeps every key id it is shown with `CLERK_JWT_KEY`, for
 * good: a request carrying made-up key ids would cost Clerk calls, or
 * memory, each time. Here a token counts only if its signature verifies
 * with one of Clerk's keys; a key id not among them fetches the JWKS at
 * most once a minute per instance. A token that verified is remembered (up
 * to KEPT_SIGNED_TOKENS of them), so each is verified here once, not once a
 * request; Clerk's SDK still verifies it on every request.
 */
export type SigningKeys = {
  /**
   * Whether one of Clerk's keys signed `token` (its signature only: its
   * times and claims are Clerk's SDK's to check). Throws what reading the
   * JWKS threw, when a key id is unknown and the JWKS cannot be read.
   */
  signedByClerk(token: string): Promise<boolean>;
  /**
   * Whether sessions can be verified now (readiness): with `CLERK_JWT_KEY`
   * always; else once Clerk's keys have been read. Until then it reads them,
   * under the same rules as an unknown key id (one read at a time, a failed
   * read is the answer for 5 s), so asking often costs Clerk nothing more.
   */
  usable(): Promise<boolean>;
};

/** How long a read of the JWKS answers for key ids it did not have. */
export const UNKNOWN_KEY_ID_MS = 60_000;
/** How long a failed read of the JWKS is the answer for unknown key ids, rather than another read. */
const FAILED_READ_MS = 5_000;
/** More keys than Clerk ever publishes at once (one, two while it rotates). */
const MAX_KEYS = 20;
/**
 * Tokens whose signature verified, kept so that the next request with the
 * same token (a browser sends one for up to a minute) is not verified again:
 * about 1 KB each, the oldest dropped first.
 */
export const KEPT_SIGNED_TOKENS = 4_096;

type Parsed = { kid: string | null; signed: Buffer; signature: Buffer };

/** A JWT's key id and signed part, if it is an RS256 JWT (all Clerk signs) at all. */
function parseJwt(token: string): Parsed | null {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((part) => !/^[\w-]+$/.test(part))) return null;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const { alg, kid } = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as {
      alg?: unknown;
      kid?: unknown;
    };
    if (alg !== "RS256") return null;
    return {
      kid: typeof kid === "string" ? kid : null,
      signed: Buffer.from(`${header}.${payload}`),
      signature: Buffer.from(signature, "base64url"),
    };
  } catch {
    return null;
  }
}

/**
 * With `jwtKey` (CLERK_JWT_KEY, Clerk's recommended networkless check) that
 * key is the only one; otherwise Clerk's JWKS, read through `readKeys` (the
 * Backend API, under the upstream policy) when a key id is not yet known.
 */
export function createSigningKeys({
  jwtKey,
  readKeys,
  now = Date.now,
}: {
  jwtKey?: string;
  readKeys: () => Promise<ClerkJwk[]>;
  now?: () => number;
}): SigningKeys {
  const only = jwtKey ? createPublicKey(jwtKey) : null;
  let keys = new Map<string, KeyObject>();
  // Only "signed" is kept: a verdict no client can bring about without a token Clerk made. Emptied when
  // the keys are read again, so a key Clerk stopped publishing signs nothing from then on.
  const signed = new Set<string>();
  let readAt = Number.NEGATIVE_INFINITY;
  let failed: { at: number; error: unknown } | null = null;
  // One read at a time, whatever the number of requests waiting on it.
  let reading: Promise<void> | null = null;

  const read = () =>
    readKeys().then(
      (jwks) => {
        const fresh = new Map<string, KeyObject>();
        for (const jwk of jwks.slice(0, MAX_KEYS)) {
          const { kid, kty, n, e } = jwk;
          if (kid && kty === "RSA" && n && e) fresh.set(kid, createPublicKey({ key: { kty, n, e }, format: "jwk" }));
        }
        keys = fresh;
        signed.clear();
        readAt = now();
        failed = null;
      },
      (error: unknown) => {
        failed = { at: now(), error };
        throw error;
      },
    );

  async function keyFor(kid: string | null): Promise<KeyObject | null> {
    if (only) return only;
    if (kid === null) return null;
    const known = keys.get(kid);
    if (known) return known;
    if (!reading) {
      if (failed && now() - failed.at < FAILED_READ_MS) throw failed.error;
      if (now() - readAt < UNKNOWN_KEY_ID_MS) return null;
      reading = read().finally(() => (reading = null));
    }
    await reading;
    return keys.get(kid) ?? null;
  }

  return {
    async usable() {
      if (only || keys.size > 0) return true;
      if (!reading) {
        // A failed read, or one that found no key, is the answer for a while.
        if ((failed && now() - failed.at < FAILED_READ_MS) || now() - readAt < FAILED_READ_MS) return false;
        reading = read().finally(() => (reading = null));
      }
      return reading.then(
        () => keys.size > 0,
        () => false,
      );
    },
    async signedByClerk(token) {
      if (signed.has(token)) return true;
      const jwt = parseJwt(token);
      if (!jwt) return false;
      const key = await keyFor(jwt.kid);
      if (key === null || !verify("RSA-SHA256", jwt.signed, key, jwt.signature)) return false;
      if (signed.size >= KEPT_SIGNED_TOKENS) signed.delete(signed.values().next().value!);
      signed.add(token);
      return true;
    },
  };
}
