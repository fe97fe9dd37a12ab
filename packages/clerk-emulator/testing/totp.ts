import { createHmac } from "node:crypto";

// An authenticator app, for tests: RFC 6238 codes (SHA-1, six digits, 30 s) from a base32 secret,
// written apart from the emulator's own so that a test of its check can fail.

function fromBase32(secret: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...secret.replace(/=+$/, "").toUpperCase()]
    .map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0"))
    .join("");
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => parseInt(b, 2)));
}

/** The code an authenticator app shows for `secret`, `stepsAway` 30-second steps from now. */
export function authenticatorCode(secret: string, stepsAway = 0, nowMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(nowMs / 30_000) + stepsAway));
  const mac = createHmac("sha1", fromBase32(secret)).update(counter).digest();
  const offset = mac[19]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/**
 * A code that stays good while a test types it: if the 30-second step is about
 * to turn, the next one (the emulator takes a step either side).
 */
export function freshAuthenticatorCode(secret: string): string {
  return authenticatorCode(secret, Date.now() % 30_000 > 25_000 ? 1 : 0);
}
